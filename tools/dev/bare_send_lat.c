// bare_send_lat: a send ping-pong with nothing of ours in it, as a yardstick
// for comparisons with perftest. It makes the verbs calls ib_send_lat makes,
// in its order, with its queue sizes and buffer: poll the receive, repost
// it, stamp, post the send, wait for the send's completion; one 2 x size
// registration of random bytes (send half, receive half); 1 send and
// -r receives; one-way latency as the median of round trips / 2. It is
// plain C on libibverbs and librdmacm only, so a gap between it and
// perftest's own binary is one no harness of ours can explain (see
// docs/perftest-comparison.md#known-gaps).
//
// Usage: bare_send_lat [-s BYTES] [-n ITERS] [-r RX_DEPTH] [-p PORT] [SERVER_IP]
// Without SERVER_IP it is the server. Both sides need the same -s and -n.
// Prints: "BYTES ITERS typical_usec p99_usec" on the client.
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cycles.h"

enum { kTimeoutMs = 10000 };
static const char* const kNoPeerHint =
    "check the address, the port and that the other side runs bare_send_lat";

static void fail(const char* what, const char* hint) {
  fprintf(stderr, "bare_send_lat: %s%s%s\n", what, hint ? ": " : "", hint ? hint : "");
  exit(1);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long parse(const char* text, const char* option, long lo, long hi) {
  char* end;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < lo || v > hi) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s %s is not a whole number in %ld..%ld", option, text, lo, hi);
    fail(msg, NULL);
  }
  return v;
}

/// The next rdma_cm event, which must be `want`; gives up after kTimeoutMs
/// rather than hang on a peer that is not there.
static struct rdma_cm_id* expect_event(struct rdma_event_channel* ch,
                                       enum rdma_cm_event_type want) {
  struct pollfd p = {.fd = ch->fd, .events = POLLIN};
  if (poll(&p, 1, kTimeoutMs) != 1)
    fail(rdma_event_str(want), "not seen within 10 s (is the peer running?)");
  struct rdma_cm_event* e;
  if (rdma_get_cm_event(ch, &e)) fail("rdma_get_cm_event", strerror(errno));
  if (e->event != want) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s where %s was expected", rdma_event_str(e->event),
             rdma_event_str(want));
    fail(msg, kNoPeerHint);
  }
  struct rdma_cm_id* id = e->id;
  rdma_ack_cm_event(e);
  return id;
}

/// Spins on a CQ for one completion, as perftest does, but ends a run whose
/// peer went away instead of spinning forever.
static void wait_one(struct ibv_cq* cq, const char* what) {
  struct ibv_wc wc;
  int n;
  unsigned long spins = 0;
  double since = 0;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
    if ((++spins & ((1ul << 20) - 1)) == 0) {
      if (since == 0)
        since = now_s();
      else if (now_s() - since > kTimeoutMs / 1000.0)
        fail(what, "none for 10 s: the peer is gone or stuck");
    }
  if (n < 0) fail(what, "ibv_poll_cq failed");
  if (wc.status == IBV_WC_WR_FLUSH_ERR)
    fail(what, "flushed: the peer hung up early (both sides need the same -s and -n)");
  if (wc.status != IBV_WC_SUCCESS) fail(what, ibv_wc_status_str(wc.status));
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/// Counter ticks per microsecond, measured against CLOCK_MONOTONIC over 0.2 s.
static double ticks_per_us(void) {
  double t0 = now_s();
  unsigned long long c0 = read_cycles();
  while (now_s() - t0 < 0.2) {
  }
  return (double)(read_cycles() - c0) / ((now_s() - t0) * 1e6);
}

struct options {
  long size, iters, rx_depth;
  const char* port;
  const char* server;  // NULL: be the server
};

static struct options parse_options(int argc, char** argv) {
  struct options o = {.size = 4096, .iters = 2000, .rx_depth = 512, .port = "18515"};
  for (int c; (c = getopt(argc, argv, "s:n:r:p:")) != -1;) switch (c) {
      case 's':
        o.size = parse(optarg, "-s", 1, 1 << 20);
        break;
      case 'n':
        o.iters = parse(optarg, "-n", 2, 10000000);
        break;
      case 'r':
        o.rx_depth = parse(optarg, "-r", 1, 8192);
        break;
      case 'p':
        parse(optarg, "-p", 1, 65535);
        o.port = optarg;
        break;
      default:
        fail("usage", "bare_send_lat [-s BYTES] [-n ITERS] [-r RX_DEPTH] [-p PORT] [SERVER_IP]");
    }
  o.server = optind < argc ? argv[optind] : NULL;
  return o;
}

/// The client's id with its route resolved, or the server's id of the one
/// client that asked to connect (and its listening id in *listener).
static struct rdma_cm_id* meet_peer(struct rdma_event_channel* ch, const struct options* o,
                                    struct rdma_cm_id** listener_out) {
  const int client = o->server != NULL;
  struct rdma_cm_id *listener = NULL, *id;
  struct addrinfo hints = {.ai_family = AF_INET, .ai_flags = client ? 0 : AI_PASSIVE}, *ai;
  if (getaddrinfo(o->server, o->port, &hints, &ai))
    fail(o->server ? o->server : "the listening address", "not an IPv4 address");
  if (rdma_create_id(ch, client ? &id : &listener, NULL, RDMA_PS_TCP))
    fail("rdma_create_id", strerror(errno));
  if (client) {
    if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000)) fail("rdma_resolve_addr", strerror(errno));
    expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
    if (rdma_resolve_route(id, 2000)) fail("rdma_resolve_route", strerror(errno));
    expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
  } else {
    if (rdma_bind_addr(listener, ai->ai_addr) || rdma_listen(listener, 1))
      fail("rdma_bind_addr/rdma_listen", strerror(errno));
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    poll(&p, 1, -1);  // a server waits for its client as long as it takes
    id = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
  }
  freeaddrinfo(ai);
  *listener_out = listener;
  return id;
}

struct resources {
  struct ibv_pd* pd;
  struct ibv_mr* mr;
  char* buf;
  struct ibv_cq *send_cq, *recv_cq;
  struct ibv_send_wr send_wr;
  struct ibv_recv_wr recv_wr;
  struct ibv_sge send_sge, recv_sge;
};

/// perftest's resources for ib_send_lat: a one-deep send queue and CQ, a
/// receive CQ as deep as the receive queue, one registration of 2 x size;
/// every receive posted, then connected.
static void set_up(struct rdma_cm_id* id, struct rdma_event_channel* ch, const struct options* o,
                   struct resources* r) {
  const long size = o->size;
  struct ibv_pd* pd = ibv_alloc_pd(id->verbs);
  r->send_cq = ibv_create_cq(id->verbs, 1, NULL, NULL, 0);
  r->recv_cq = ibv_create_cq(id->verbs, (int)o->rx_depth, NULL, NULL, 0);
  char* buf = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), (size_t)(2 * size));
  if (!pd || !r->send_cq || !r->recv_cq || !buf)
    fail("allocating the PD, CQs and buffer", strerror(errno));
  for (long i = 0; i < 2 * size; i++) buf[i] = (char)rand();
  struct ibv_mr* mr = ibv_reg_mr(pd, buf, (size_t)(2 * size), IBV_ACCESS_LOCAL_WRITE);
  if (!mr) fail("ibv_reg_mr", strerror(errno));
  r->pd = pd, r->mr = mr, r->buf = buf;
  struct ibv_qp_init_attr qa = {.send_cq = r->send_cq,
                                .recv_cq = r->recv_cq,
                                .qp_type = IBV_QPT_RC,
                                .cap = {.max_send_wr = 1,
                                        .max_recv_wr = (uint32_t)o->rx_depth,
                                        .max_send_sge = 1,
                                        .max_recv_sge = 1}};
  if (rdma_create_qp(id, pd, &qa)) fail("rdma_create_qp", strerror(errno));
  r->recv_sge = (struct ibv_sge){(uintptr_t)(buf + size), (uint32_t)size, mr->lkey};
  r->recv_wr = (struct ibv_recv_wr){.sg_list = &r->recv_sge, .num_sge = 1};
  struct ibv_recv_wr* bad_recv;
  for (long i = 0; i < o->rx_depth; i++)
    if (ibv_post_recv(id->qp, &r->recv_wr, &bad_recv))
      fail("ibv_post_recv", "-r exceeds what the device allows");
  r->send_sge = (struct ibv_sge){(uintptr_t)buf, (uint32_t)size, mr->lkey};
  r->send_wr = (struct ibv_send_wr){
      .sg_list = &r->send_sge, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED};
  struct rdma_conn_param conn = {
      .responder_resources = 1, .initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7};
  if (o->server && rdma_connect(id, &conn)) fail(strerror(errno), kNoPeerHint);
  if (!o->server && rdma_accept(id, &conn)) fail("rdma_accept", strerror(errno));
  expect_event(ch, RDMA_CM_EVENT_ESTABLISHED);
}

/// The ping-pong; on the client, prints bytes, iterations, typical and p99
/// one-way latency (usec).
static void ping_pong(struct rdma_cm_id* id, const struct options* o, struct resources* r) {
  const int client = o->server != NULL;
  const long iters = o->iters;
  struct ibv_send_wr* bad_send;
  struct ibv_recv_wr* bad_recv;
  unsigned long long* stamp = malloc((size_t)(iters + 1) * sizeof *stamp);
  if (!stamp) fail("malloc", "-n is too large");
  long received = 0;
  for (long i = 0; i < iters; i++) {
    if (!client || i > 0) {  // the client sends first
      wait_one(r->recv_cq, "the peer's message");
      // perftest reposts only while more messages are due than are posted
      if (++received + o->rx_depth <= iters && ibv_post_recv(id->qp, &r->recv_wr, &bad_recv))
        fail("ibv_post_recv", NULL);
    }
    stamp[i] = read_cycles();
    if (ibv_post_send(id->qp, &r->send_wr, &bad_send))
      fail("ibv_post_send", "the QP left RTS (peer gone?)");
    wait_one(r->send_cq, "the send's completion");
  }
  if (!client) {
    free(stamp);
    return;
  }
  wait_one(r->recv_cq, "the peer's last message");
  stamp[iters] = read_cycles();
  const double per_us = ticks_per_us();
  double* one_way = malloc((size_t)iters * sizeof *one_way);
  if (!one_way) fail("malloc", "-n is too large");
  for (long i = 0; i < iters; i++) one_way[i] = (double)(stamp[i + 1] - stamp[i]) / per_us / 2;
  qsort(one_way, (size_t)iters, sizeof *one_way, by_value);
  printf("%ld %ld %.3f %.3f\n", o->size, iters, one_way[iters / 2], one_way[iters * 99 / 100]);
  free(one_way);
  free(stamp);
}

/// Everything set_up and meet_peer made, in reverse order (so that a leak
/// checker sees a clean exit, as perftest's own teardown gives).
static void tear_down(struct rdma_cm_id* id, struct rdma_cm_id* listener,
                      struct rdma_event_channel* ch, struct resources* r) {
  rdma_destroy_qp(id);
  ibv_dereg_mr(r->mr);
  free(r->buf);
  ibv_destroy_cq(r->send_cq);
  ibv_destroy_cq(r->recv_cq);
  ibv_dealloc_pd(r->pd);
  rdma_destroy_id(id);
  if (listener) rdma_destroy_id(listener);
  rdma_destroy_event_channel(ch);
}

int main(int argc, char** argv) {
  const struct options o = parse_options(argc, argv);
  struct rdma_event_channel* ch = rdma_create_event_channel();
  if (!ch) fail("rdma_create_event_channel", strerror(errno));
  struct rdma_cm_id* listener;
  struct rdma_cm_id* id = meet_peer(ch, &o, &listener);
  struct resources r;
  set_up(id, ch, &o, &r);
  ping_pong(id, &o, &r);
  // The client hangs up once it has every answer; the server waits for
  // that, so that its last answer is not cut off in flight.
  if (o.server)
    rdma_disconnect(id);
  else
    expect_event(ch, RDMA_CM_EVENT_DISCONNECTED);
  tear_down(id, listener, ch, &r);
  return 0;
}
