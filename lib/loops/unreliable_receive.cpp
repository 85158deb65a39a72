// The receiving side of send bandwidth on UC and UD. Both drop a message
// that finds no receive posted (UD also one that meets any trouble) without
// telling either side (no RNR retries without acks), so the
// receiver cannot wait for a count it may never reach, and an end marker
// could be lost too. It reaps and reposts until the sender has said on the
// control connection that it is done (its end-of-size barrier, which waits
// there unread), then for a grace period in which nothing more arrives, so
// that messages still in flight are counted. It reports what arrived against
// what the sender posted (warmup included: arrivals cannot tell the two
// apart), and the bandwidth of the arrivals from the first to the last.
#include <chrono>

#include "loops/loop_kit.hpp"
#include "loops/loops.hpp"
#include "loops/poll_batch.hpp"
#include "loops/receive_lanes.hpp"

namespace rdmabench::detail {

namespace {

// Looking at the control socket costs a system call: only every 4096 idle polls.
constexpr std::uint64_t kControlCheckMask = (1u << 12) - 1;
// Quiet time after the sender is done before the count is final; far longer
// than a packet spends in flight, even under emulation.
constexpr auto kGrace = std::chrono::milliseconds(200);

}  // namespace

SizeResult measure_unreliable_receive(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(v, bytes);
  const PreparedReceive receive = prepare_receive(v);
  ibv_recv_wr wr = receive.wr;
  auto sges = receive.sges;
  wr.sg_list = sges.data();
  ibv_recv_wr* bad = nullptr;
  ibv_qp* qp = v.qps.front().get();
  ibv_srq* srq = v.srq.get();  // --use-srq: reposts go to the shared queue
  ibv_cq* cq = v.recv_cq.get();
  const std::uint64_t sent = v.warmup() + v.spec.iterations;
  Watchdog dog(v.peer, v.timeout, "the peer's sends");

  std::uint64_t received = 0, first = 0, last = 0, idle_polls = 0;
  bool sender_done = false;
  auto quiet_since = std::chrono::steady_clock::now();
  ibv_wc wc[kPollBatch];
  with_clock(clock, [&]<typename Clock>() {
    while (received < sent) {
      const int n = ibv_poll_cq(cq, kPollBatch, wc);
      if (n < 0) [[unlikely]]
        dog.completion_failed(wc[0], n);
      if (n == 0) {
        if (!sender_done) dog.idle(received);  // a sender that stalls or dies
        if ((++idle_polls & kControlCheckMask) != 0) continue;
        const auto now = std::chrono::steady_clock::now();
        if (!sender_done && v.peer.peer_has_spoken()) {
          sender_done = true;
          quiet_since = now;
        }
        if (sender_done && now - quiet_since > kGrace) break;
        continue;
      }
      const std::uint64_t now = Clock::now();
      if (received == 0) first = now;
      last = now;
      for (int k = 0; k < n; ++k) {
        if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
          dog.completion_failed(wc[k]);
        check_received_length(wc[k].byte_len, bytes, receive.header_bytes);
        if (int rc = post_receive(qp, srq, &wr, &bad); rc != 0) [[unlikely]]
          dog.post_failed(rc);
      }
      received += static_cast<std::uint64_t>(n);
      if (sender_done) quiet_since = std::chrono::steady_clock::now();
    }
  });
  r.delivery = Delivery{sent, received};
  r.bandwidth = arrival_figures(first, last, received, bytes, clock.ticks_per_us);
  return r;
}

}  // namespace rdmabench::detail
