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
#include <x86intrin.h>

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

/// TSC ticks per microsecond, measured against CLOCK_MONOTONIC over 0.2 s.
static double ticks_per_us(void) {
  double t0 = now_s();
  unsigned long long c0 = __rdtsc();
  while (now_s() - t0 < 0.2) {
  }
  return (double)(__rdtsc() - c0) / ((now_s() - t0) * 1e6);
}

int main(int argc, char** argv) {
  long size = 4096, iters = 2000, rx_depth = 512;
  const char* port = "18515";
  for (int c; (c = getopt(argc, argv, "s:n:r:p:")) != -1;) switch (c) {
      case 's':
        size = parse(optarg, "-s", 1, 1 << 20);
        break;
      case 'n':
        iters = parse(optarg, "-n", 2, 10000000);
        break;
      case 'r':
        rx_depth = parse(optarg, "-r", 1, 8192);
        break;
      case 'p':
        parse(optarg, "-p", 1, 65535);
        port = optarg;
        break;
      default:
        fail("usage", "bare_send_lat [-s BYTES] [-n ITERS] [-r RX_DEPTH] [-p PORT] [SERVER_IP]");
    }
  const char* server = optind < argc ? argv[optind] : NULL;
  const int client = server != NULL;

  struct rdma_event_channel* ch = rdma_create_event_channel();
  if (!ch) fail("rdma_create_event_channel", strerror(errno));
  struct rdma_cm_id *listener, *id;
  struct addrinfo hints = {.ai_family = AF_INET, .ai_flags = client ? 0 : AI_PASSIVE}, *ai;
  if (getaddrinfo(server, port, &hints, &ai))
    fail(server ? server : "the listening address", "not an IPv4 address");
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

  // perftest's resources for ib_send_lat: a one-deep send queue and CQ, a
  // receive CQ as deep as the receive queue, one registration of 2 x size.
  struct ibv_pd* pd = ibv_alloc_pd(id->verbs);
  struct ibv_cq* send_cq = ibv_create_cq(id->verbs, 1, NULL, NULL, 0);
  struct ibv_cq* recv_cq = ibv_create_cq(id->verbs, (int)rx_depth, NULL, NULL, 0);
  char* buf = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), (size_t)(2 * size));
  if (!pd || !send_cq || !recv_cq || !buf)
    fail("allocating the PD, CQs and buffer", strerror(errno));
  for (long i = 0; i < 2 * size; i++) buf[i] = (char)rand();
  struct ibv_mr* mr = ibv_reg_mr(pd, buf, (size_t)(2 * size), IBV_ACCESS_LOCAL_WRITE);
  if (!mr) fail("ibv_reg_mr", strerror(errno));
  struct ibv_qp_init_attr qa = {.send_cq = send_cq,
                                .recv_cq = recv_cq,
                                .qp_type = IBV_QPT_RC,
                                .cap = {.max_send_wr = 1,
                                        .max_recv_wr = (uint32_t)rx_depth,
                                        .max_send_sge = 1,
                                        .max_recv_sge = 1}};
  if (rdma_create_qp(id, pd, &qa)) fail("rdma_create_qp", strerror(errno));
  struct ibv_sge recv_sge = {(uintptr_t)(buf + size), (uint32_t)size, mr->lkey};
  struct ibv_recv_wr recv_wr = {.sg_list = &recv_sge, .num_sge = 1}, *bad_recv;
  for (long i = 0; i < rx_depth; i++)
    if (ibv_post_recv(id->qp, &recv_wr, &bad_recv))
      fail("ibv_post_recv", "-r exceeds what the device allows");
  struct rdma_conn_param conn = {
      .responder_resources = 1, .initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7};
  if (client && rdma_connect(id, &conn)) fail(strerror(errno), kNoPeerHint);
  if (!client && rdma_accept(id, &conn)) fail("rdma_accept", strerror(errno));
  expect_event(ch, RDMA_CM_EVENT_ESTABLISHED);

  struct ibv_sge send_sge = {(uintptr_t)buf, (uint32_t)size, mr->lkey};
  struct ibv_send_wr send_wr = {.sg_list = &send_sge,
                                .num_sge = 1,
                                .opcode = IBV_WR_SEND,
                                .send_flags = IBV_SEND_SIGNALED},
                     *bad_send;
  unsigned long long* stamp = malloc((size_t)(iters + 1) * sizeof *stamp);
  if (!stamp) fail("malloc", "-n is too large");
  long received = 0;
  for (long i = 0; i < iters; i++) {
    if (!client || i > 0) {  // the client sends first
      wait_one(recv_cq, "the peer's message");
      // perftest reposts only while more messages are due than are posted
      if (++received + rx_depth <= iters && ibv_post_recv(id->qp, &recv_wr, &bad_recv))
        fail("ibv_post_recv", NULL);
    }
    stamp[i] = __rdtsc();
    if (ibv_post_send(id->qp, &send_wr, &bad_send))
      fail("ibv_post_send", "the QP left RTS (peer gone?)");
    wait_one(send_cq, "the send's completion");
  }
  if (client) {
    wait_one(recv_cq, "the peer's last message");
    stamp[iters] = __rdtsc();
    const double per_us = ticks_per_us();
    double* one_way = malloc((size_t)iters * sizeof *one_way);
    if (!one_way) fail("malloc", "-n is too large");
    for (long i = 0; i < iters; i++) one_way[i] = (double)(stamp[i + 1] - stamp[i]) / per_us / 2;
    qsort(one_way, (size_t)iters, sizeof *one_way, by_value);
    printf("%ld %ld %.3f %.3f\n", size, iters, one_way[iters / 2], one_way[iters * 99 / 100]);
  }
  // The client hangs up once it has every answer; the server waits for
  // that, so that its last answer is not cut off in flight.
  if (client)
    rdma_disconnect(id);
  else
    expect_event(ch, RDMA_CM_EVENT_DISCONNECTED);
  return 0;
}
