// Send latency: ping-pong of two-sided sends. The client sends, then spins
// on its receive queue for the server's reply; the server does the mirror
// image. Each side reposts the receive it consumed once it has answered (on
// the shared receive queue with --use-srq). A
// sample is the time between two consecutive posts, halved for one-way
// latency as perftest does.
// A -D run ends with a zero-length send each way: the server, which does not
// know the count, stops when it sees it.
#include "loops/loop_kit.hpp"
#include "loops/loops.hpp"
#include "loops/latency_recorders.hpp"
#include "loops/receive_lanes.hpp"

namespace rdmabench::detail {

namespace {

struct SendLatencyLoop {
  ibv_qp* qp;
  ibv_srq* srq;  ///< --use-srq: where the consumed receive goes back; else null
  ibv_cq* send_cq;
  ibv_cq* recv_cq;
  PreparedOperation send;
  PreparedReceive receive;
  std::uint64_t bytes;
  bool initiator;
};

template <typename Clock, typename Recorder>
void send_latency_loop(const SendLatencyLoop& L, Recorder& recorder, Watchdog& dog) {
  ibv_send_wr wr = L.send.wr;
  ibv_sge sge = L.send.sge;
  wr.sg_list = &sge;
  ibv_send_wr marker = wr;  // zero-length: the end of a -D run
  marker.num_sge = 0;
  ibv_recv_wr rwr = L.receive.wr;
  auto rsges = L.receive.sges;
  rwr.sg_list = rsges.data();
  ibv_send_wr* bad = nullptr;
  ibv_recv_wr* bad_receive = nullptr;
  bool signal_pending = false;
  auto receive = [&](std::uint64_t i) {
    const std::uint32_t header = L.receive.header_bytes;
    if constexpr (Recorder::kEndsWithMarker) return reap_receive_or_marker(L.recv_cq, L.bytes, header, dog, i);
    reap_receive(L.recv_cq, L.bytes, header, dog, i);
    return false;
  };
  for (std::uint64_t i = 0;; ++i) {
    bool final = false;
    if (!L.initiator) final = receive(i);
    const std::uint64_t now = Clock::now();
    if (L.initiator || !Recorder::kEndsWithMarker) final = recorder.last(i, now);
    recorder.record(i, now);
    const bool signaled = i % kLatencySignalEvery == kLatencySignalEvery - 1 || final;
    if (signaled) {
      if (signal_pending) reap_one(L.send_cq, dog);
      signal_pending = true;
    }
    ibv_send_wr& out = Recorder::kEndsWithMarker && final ? marker : wr;
    out.send_flags = L.send.base_flags | (signaled ? unsigned{IBV_SEND_SIGNALED} : 0u);
    if (int rc = ibv_post_send(L.qp, &out, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    // While the peer's answer is on its way: reap ours now if it is there
    // (siw writes it during the post), so the next turn need not.
    if (signaled && try_reap_one(L.send_cq, dog)) signal_pending = false;
    if (L.initiator) receive(i);
    // The consumed receive goes back only now, off the path between a
    // message and its answer: the others posted cover the next message.
    if (int rc = post_receive(L.qp, L.srq, &rwr, &bad_receive); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    if (final) break;
  }
  if (L.initiator) recorder.finish(Clock::now());
  if (signal_pending) reap_one(L.send_cq, dog);
}

}  // namespace

SizeResult measure_send_latency(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  const SendLatencyLoop loop{v.qps.front().get(),         v.srq.get(), v.cq.get(), v.recv_cq.get(),
                             prepare_operation(v, bytes), prepare_receive(v), bytes,
                             v.role == Role::client};
  // UD drops a message that meets trouble, and a ping-pong then waits for
  // an answer that never comes: the watchdog ends it, saying why.
  Watchdog dog(v.peer, v.timeout,
               v.spec.qp_type == QpType::ud ? "the peer's send (UD is unreliable: a lost message "
                                              "ends a ping-pong)"
                                            : "the peer's send");
  return time_ping_pong(v, bytes, clock, [&]<typename Clock>(auto& recorder) {
    send_latency_loop<Clock>(loop, recorder, dog);
  });
}

}  // namespace rdmabench::detail
