// The receiving side of send bandwidth: the server reaps receive completions
// in batches and reposts each consumed receive at once on the QP it came
// from (or on the shared receive queue, --use-srq), so the sender finds one
// posted (else it would stall on receiver-not-ready retries). A counted run times its messages from the
// first arrival to the last; a -D run times the window that starts a tenth of
// the duration after the first arrival and ends a tenth before the duration
// is over, and ends when every QP has delivered its zero-length end marker.
#include <algorithm>

#include "loops/bandwidth_window.hpp"
#include "loops/loop_kit.hpp"
#include "loops/loops.hpp"
#include "loops/receive_lanes.hpp"
#include "loops/poll_batch.hpp"

namespace rdmabench::detail {

namespace {

struct ReceiveLoop {
  ibv_cq* cq;
  PreparedReceive receive;
  ReceiveQueues queues;  ///< each lane's, or the one shared by all
  std::uint64_t bytes;
};

/// Reaps `count` messages (a counted run) or until every lane's end marker
/// (Timed); `first` and `last` are the first and last arrival.
template <typename Clock, bool Timed>
void receive_loop(const ReceiveLoop& L, std::vector<Lane>& lanes, std::uint64_t count,
                  BandwidthWindow& window, std::uint64_t* first, std::uint64_t* last, Watchdog& dog) {
  ibv_recv_wr wr = L.receive.wr;
  auto sges = L.receive.sges;
  wr.sg_list = sges.data();
  ibv_recv_wr* bad = nullptr;
  ibv_wc wc[kPollBatch];
  std::uint64_t received = 0, markers = 0;
  while (Timed ? markers < lanes.size() : received < count) {
    // Never reap past `count`: the warmup phase must not swallow the first
    // timed messages (nor the timed phase the next size's).
    const int want = Timed ? kPollBatch : static_cast<int>(std::min<std::uint64_t>(kPollBatch, count - received));
    const int n = ibv_poll_cq(L.cq, want, wc);
    if (n == 0) {
      dog.idle(received);
      continue;
    }
    const std::uint64_t now = Clock::now();
    if (received == 0 && markers == 0) {
      *first = now;
      window.start(now);
    }
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    for (int k = 0; k < n; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
        dog.completion_failed(wc[k]);
      const std::size_t index = L.queues.lane_of(wc[k]);
      Lane& lane = lanes[index];
      if (Timed && wc[k].byte_len == 0) {
        ++markers;  // the sender's deadline has passed on this QP
        continue;
      }
      check_received_length(wc[k].byte_len, L.bytes, L.receive.header_bytes);
      if (int rc = L.queues.post(index, wr, bad); rc != 0) [[unlikely]]
        dog.post_failed(rc);
      ++lane.completed;
      ++received;
    }
    *last = now;
    if constexpr (Timed) window.passed(now, received, lanes);
  }
  // The markers consumed receives too: put them back for the next size.
  if constexpr (Timed)
    for (std::size_t i = 0; i < lanes.size(); ++i)
      if (int rc = L.queues.post(i, wr, bad); rc != 0) dog.post_failed(rc);
}

}  // namespace

SizeResult measure_receive_bandwidth(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(v, bytes);
  const ReceiveLoop loop{v.recv_cq.get(), prepare_receive(v), receive_queues(v), bytes};
  std::vector<Lane> lanes;
  for (auto& qp : v.qps) lanes.push_back(Lane{qp.get(), 0, 0, 0});
  auto warmup_lanes = lanes;
  const std::uint64_t qps = v.qps.size();
  BandwidthWindow untimed = BandwidthWindow::counted(1, qps);
  BandwidthWindow window = BandwidthWindow::timed(v.spec.duration_s, clock.ticks_per_us,
                                                  peak_span(v.spec.tx_depth, qps), qps,
                                                  untimed_margin_share(v.spec));
  window.keep_intervals(v.interval, v.spec.duration_s, clock.ticks_per_us);
  Watchdog dog(v.peer, v.timeout, "the peer's sends");
  explain_receive_shortage(v, dog);
  std::uint64_t first = 0, last = 0;
  with_clock(clock, [&]<typename Clock>() {
    if (v.spec.duration_s) {
      receive_loop<Clock, true>(loop, lanes, 0, window, &first, &last, dog);
      return;
    }
    if (v.warmup())
      receive_loop<Clock, false>(loop, warmup_lanes, v.warmup() * qps, untimed, &first, &last, dog);
    receive_loop<Clock, false>(loop, lanes, v.spec.iterations * qps, untimed, &first, &last, dog);
  });
  if (v.spec.duration_s) {
    r.bandwidth = window.figures(bytes, clock.ticks_per_us);
    r.over_time = window.over_time(bytes, clock.ticks_per_us);
    r.iterations = r.bandwidth->messages;
    r.warmup = 0;
    return r;
  }
  r.bandwidth = arrival_figures(first, last, v.spec.iterations * qps, bytes, clock.ticks_per_us);
  if (r.bandwidth && qps > 1) {
    const double us = r.bandwidth->seconds * 1e6;
    for (const Lane& lane : lanes)
      r.bandwidth->per_qp_mb_per_s.push_back(static_cast<double>(lane.completed * bytes) / us);
  }
  return r;
}

std::optional<BandwidthFigures> arrival_figures(std::uint64_t first, std::uint64_t last,
                                                std::uint64_t messages, std::uint64_t bytes,
                                                double ticks_per_us) {
  const double us = static_cast<double>(last - first) / ticks_per_us;
  if (messages <= 1 || us <= 0) return std::nullopt;
  BandwidthFigures b;
  b.seconds = us / 1e6;
  b.messages = messages - 1;
  const double timed = static_cast<double>(b.messages);
  b.average_mb_per_s = timed * static_cast<double>(bytes) / us;
  b.message_rate_mpps = timed / us;
  b.peak_mb_per_s = b.average_mb_per_s;  // per-completion stamps would cost the receiver time
  return b;
}

}  // namespace rdmabench::detail
