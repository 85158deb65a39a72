// Open-loop send and write latency (--rate): the client sends on the
// pacer's schedule, up to -t messages in flight; the server answers each
// message as soon as its receive completes (an echo: a send for send_lat, a
// write with immediate data for write_lat, so that both sides reap a
// completion per message). A message's response time runs from when it was
// due to the arrival of its answer, its service time from its post; the
// sinks and the report are those of the read and atomic open loop
// (open_loop_schedule.hpp). Unlike the ping-pong, a stopped server holds up
// every message due while it is stopped, and each is charged for it.
//
// Answers are matched to messages by order (one RC queue pair delivers in
// order; UC and UD are refused with --rate); a write's immediate data
// carries the message's index, and the client checks it. Every message is
// signaled: its send queue slot is free only once its completion is reaped.
// A counted run ends when the server has answered warm-up + iterations; a
// -D run, whose server does not know the count, ends with a zero-length
// message that the server echoes before it stops, as the ping-pong does.
#include <arpa/inet.h>

#include <array>
#include <limits>

#include "loops/echo_window.hpp"
#include "loops/loops.hpp"
#include "loops/open_loop_schedule.hpp"
#include "loops/poll_batch.hpp"
#include "loops/receive_lanes.hpp"

namespace rdmabench::detail {

namespace {

/// One side's queue pair, its requests, and the size it carries.
struct EchoQueues {
  ibv_qp* qp;
  ibv_srq* srq;  ///< --use-srq: where consumed receives go back; else null
  ibv_cq* send_cq;
  ibv_cq* recv_cq;
  PreparedOperation message;  ///< a send, or a write with immediate data
  PreparedReceive receive;
  std::uint64_t bytes;
  std::uint32_t send_slots;  ///< the send queue's depth
  bool indexed;              ///< writes: the immediate data carries the index
};

/// The requests a loop posts, built once from EchoQueues: its message
/// (signaled), the zero-length end marker, and the receive to repost.
struct EchoRequests {
  ibv_send_wr message{}, marker{};
  ibv_sge sge{};
  ibv_recv_wr receive{};
  std::array<ibv_sge, 2> receive_sges{};

  explicit EchoRequests(const EchoQueues& q) : message(q.message.wr), sge(q.message.sge),
                                                receive(q.receive.wr), receive_sges(q.receive.sges) {
    message.sg_list = &sge;
    message.send_flags = q.message.base_flags | IBV_SEND_SIGNALED;
    marker = message;
    marker.num_sge = 0;
    receive.sg_list = receive_sges.data();
  }
  EchoRequests(const EchoRequests&) = delete;  // the requests point into this object
};

void post(ibv_qp* qp, ibv_send_wr& wr, Watchdog& dog) {
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(qp, &wr, &bad); rc != 0) [[unlikely]]
    dog.post_failed(rc);
}

void repost(const EchoQueues& q, ibv_recv_wr& wr, Watchdog& dog) {
  ibv_recv_wr* bad = nullptr;
  if (int rc = post_receive(q.qp, q.srq, &wr, &bad); rc != 0) [[unlikely]]
    dog.post_failed(rc);
}

/// Reaps what the send queue has completed, without waiting; returns how many.
std::uint64_t reap_sends(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc[kPollBatch];
  const int n = ibv_poll_cq(cq, kPollBatch, wc);
  if (n < 0) [[unlikely]]
    dog.completion_failed(wc[0], n);
  for (int k = 0; k < n; ++k)
    if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
      dog.completion_failed(wc[k]);
  return static_cast<std::uint64_t>(n);
}

/// Checks an arrived message or answer; true for a zero-length end marker,
/// which only a -D run (`markers`) may carry.
bool arrived_marker(const ibv_wc& wc, const EchoQueues& q, bool markers, Watchdog& dog) {
  if (wc.status != IBV_WC_SUCCESS) [[unlikely]]
    dog.completion_failed(wc);
  if (markers && wc.byte_len == 0) return true;
  check_received_length(wc.byte_len, q.bytes, 0);
  return false;
}

template <typename Clock, typename Sink>
void echo_client(const EchoQueues& q, Pacer& pacer, std::vector<Posted>& ring, Sink& sink, Watchdog& dog) {
  EchoRequests r(q);
  EchoWindow w{ring.size(), q.send_slots};
  ibv_wc wc[kPollBatch];
  for (;;) {
    const std::uint64_t posted = pacer.posted();
    if (sink.keep_posting(posted, Clock::now()))
      post_due<Clock>(q.qp, r.message, pacer, ring, w.room(posted), sink.total() - posted, dog);
    else if (w.settled(posted))
      break;
    const std::uint64_t sent = reap_sends(q.send_cq, dog);
    w.sent += sent;
    const int n = ibv_poll_cq(q.recv_cq, kPollBatch, wc);
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    if (n == 0) {
      // Only a wait for something owed is a stall; the server's CPU takes
      // part, so a stopped server shows here (and through its heartbeats).
      if (sent == 0 && w.waiting(pacer.posted())) dog.idle(w.answered + w.sent);
      dog.watch(w.answered);
      continue;
    }
    const std::uint64_t now = Clock::now();
    for (int k = 0; k < n; ++k) {
      arrived_marker(wc[k], q, /*markers=*/false, dog);  // a marker here is a wrong length
      if (q.indexed) check_answer_index(ntohl(wc[k].imm_data), w.answered);
      const Posted& p = ring[w.answered % ring.size()];
      sink.record(w.answered, p.intended, p.posted, now);
      ++w.answered;
      repost(q, r.receive, dog);
    }
  }
}

/// The end of a -D run: a zero-length message, and its echo.
void end_echo_run(const EchoQueues& q, Watchdog& dog) {
  EchoRequests r(q);
  post(q.qp, r.marker, dog);
  reap_one(q.send_cq, dog);
  if (!reap_receive_or_marker(q.recv_cq, q.bytes, 0, dog, 0))
    throw Error("protocol error: the server answered the end of the run with a message");
  repost(q, r.receive, dog);
}

/// The server: answers each message as it arrives, `total` of them, or in
/// a -D run (total: the largest count) until the end marker.
void echo_server(const EchoQueues& q, std::uint64_t total, bool markers, Watchdog& dog) {
  EchoRequests r(q);
  std::uint64_t answered = 0, sent = 0;
  bool ended = false;
  ibv_wc wc[kPollBatch];
  while ((!ended && answered < total) || sent < answered) {
    const std::uint64_t reaped = reap_sends(q.send_cq, dog);
    sent += reaped;
    const int n = ended ? 0 : ibv_poll_cq(q.recv_cq, kPollBatch, wc);
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    if (n == 0 && reaped == 0) {
      // Waiting for the client's next message is no stall: at a low rate it
      // may be long. Its heartbeats say whether it is still there.
      if (sent < answered) dog.idle(answered + sent);
      dog.watch(answered);
    }
    for (int k = 0; k < n; ++k) {
      const bool marker = arrived_marker(wc[k], q, markers, dog);
      // The client's window bounds what it sends, but not our send queue:
      // its answers may have arrived before our completions were reaped.
      while (answered - sent >= q.send_slots) {
        reap_one(q.send_cq, dog);
        ++sent;
      }
      ibv_send_wr& out = marker ? r.marker : r.message;
      out.imm_data = wc[k].imm_data;  // the index, as it came (writes)
      post(q.qp, out, dog);
      ++answered;
      repost(q, r.receive, dog);
      ended = ended || marker;
    }
  }
}

}  // namespace

SizeResult measure_open_loop_echo(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  const EchoQueues q{.qp = v.qps.front().get(),
                     .srq = v.srq.get(),
                     .send_cq = v.cq.get(),
                     .recv_cq = v.recv_cq.get(),
                     .message = prepare_operation(v, bytes),
                     .receive = prepare_receive(v),
                     .bytes = bytes,
                     .send_slots = v.send_queue_depth,
                     .indexed = writes_with_immediate(v.spec)};
  const bool markers = v.spec.duration_s != 0;
  if (v.role == Role::server) {
    Watchdog dog(v.peer, v.timeout, "the client's next message");
    explain_receive_shortage(v, dog);
    const std::uint64_t total = markers ? std::numeric_limits<std::uint64_t>::max()
                                        : v.warmup() + v.spec.iterations;
    echo_server(q, total, markers, dog);
    return result_header(v, bytes);  // the client times; the server only answers
  }
  Watchdog dog(v.peer, v.timeout, "the server's answer");
  explain_receive_shortage(v, dog);
  SizeResult r = run_open_loop(v, bytes, clock,
                               [&]<typename Clock>(Pacer& pacer, std::vector<Posted>& ring, auto& sink) {
                                 echo_client<Clock>(q, pacer, ring, sink, dog);
                               });
  if (markers) end_echo_run(q, dog);
  return r;
}

}  // namespace rdmabench::detail
