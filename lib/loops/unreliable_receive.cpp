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
// A multicast server (-g N) has N receivers, UD QPs attached to one group,
// each owed a copy of every message: it counts and reposts each one's
// receives on its own QP (its lane), and reports each one's delivery.
#include <chrono>
#include <vector>

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
  // Each receiver's lane (multicast: one per attached QP), and where its
  // receives go back: its own QP, or the shared queue (--use-srq).
  const ReceiveQueues queues = receive_queues(v);
  ibv_cq* cq = v.recv_cq.get();
  const std::size_t receivers = v.qps.size();
  const std::uint64_t sent = v.warmup() + v.spec.iterations;
  const std::uint64_t due = sent * receivers;  // every receiver's copy
  std::vector<std::uint64_t> arrived(receivers, 0);
  Watchdog dog(v.peer, v.timeout, "the peer's sends");

  std::uint64_t received = 0, first = 0, last = 0, idle_polls = 0;
  bool sender_done = false;
  auto quiet_since = std::chrono::steady_clock::now();
  ibv_wc wc[kPollBatch];
  with_clock(clock, [&]<typename Clock>() {
    while (received < due) {
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
        const std::size_t lane = queues.lane_of(wc[k]);
        if (int rc = queues.post(lane, wr, bad); rc != 0) [[unlikely]]
          dog.post_failed(rc);
        ++arrived[lane];
      }
      received += static_cast<std::uint64_t>(n);
      if (sender_done) quiet_since = std::chrono::steady_clock::now();
    }
  });
  r.delivery = Delivery{due, received};
  r.bandwidth = arrival_figures(first, last, received, bytes, clock.ticks_per_us);
  if (v.spec.multicast_receivers)
    for (std::size_t lane = 0; lane < receivers; ++lane)
      r.delivery_per_receiver.push_back(ReceiverDelivery{v.qps[lane]->qp_num, Delivery{sent, arrived[lane]}});
  // Each receiver's share of the arrivals' time, as -q's per-QP figures.
  if (r.bandwidth && receivers > 1)
    for (const std::uint64_t copies : arrived)
      r.bandwidth->per_qp_mb_per_s.push_back(static_cast<double>(copies * bytes) / (r.bandwidth->seconds * 1e6));
  return r;
}

}  // namespace rdmabench::detail
