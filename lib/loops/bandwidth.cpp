// Bandwidth of writes, reads, sends or atomics from this side: tx-depth
// operations in flight on each of the -q queue pairs, one in `signal_every`
// signaled, completions polled in batches from the CQ they share. A count
// run times all its operations; a -D run times a window that leaves out a
// warm-up and a cool-down margin. A passive server takes no part; it waits
// at the barrier that ends the size.
#include <algorithm>
#include <limits>

#include "loops/bandwidth_window.hpp"
#include "engine/engine_internal.hpp"
#include "loops/receive_replenisher.hpp"

namespace rdmabench::detail {

namespace {

constexpr int kPollBatch = 16;
// A completion's wr_id holds its QP's index above this bit and, below it,
// how many operations that QP has had completed.
constexpr unsigned kLaneShift = 40;
constexpr std::uint64_t kCountMask = (std::uint64_t{1} << kLaneShift) - 1;

struct BandwidthLoop {
  ibv_cq* cq;
  ibv_send_wr* chain;  ///< post_list work requests linked by `next`
  unsigned base_flags;
  std::uint64_t post_list;
  std::uint64_t depth;         ///< per QP
  std::uint64_t signal_every;  ///< <= depth, or the loop would wait forever
};

/// Fills a lane's free queue slots with chains of up to post_list requests;
/// the last chain may be shorter. Only a chain's last request can be
/// signaled: when the chain crosses a multiple of signal_every, or ends the
/// lane's run.
inline void fill_lane(const BandwidthLoop& L, Lane& lane, std::uint64_t index, Watchdog& dog) {
  ibv_send_wr* bad = nullptr;
  std::uint64_t room = std::min(lane.target - lane.posted, L.depth - (lane.posted - lane.completed));
  while (room > 0) {
    const std::uint64_t k = std::min(room, L.post_list);
    const std::uint64_t before = lane.posted;
    lane.posted += k;
    room -= k;
    ibv_send_wr& last = L.chain[k - 1];
    const bool signaled = lane.posted / L.signal_every != before / L.signal_every ||
                          lane.posted == lane.target;
    last.next = nullptr;
    last.wr_id = (index << kLaneShift) | lane.posted;
    last.send_flags = L.base_flags | (signaled ? unsigned{IBV_SEND_SIGNALED} : 0u);
    if (int rc = ibv_post_send(lane.qp, L.chain, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    last.send_flags = L.base_flags;
    last.next = k < L.post_list ? &L.chain[k] : nullptr;
  }
}

/// Runs every lane to its target (a count run: all timed; a -D run: the
/// window decides when to stop and what is timed). `Timed` is fixed per
/// run, so the loop carries no branch on the mode.
template <typename Clock, bool Timed, typename Receives>
void bandwidth_loop(const BandwidthLoop& L, std::vector<Lane>& lanes, BandwidthWindow& window,
                    Receives& receives, Watchdog& dog) {
  ibv_wc wc[kPollBatch];
  std::uint64_t completed = 0, target = 0;
  for (const Lane& lane : lanes) target += lane.target;
  window.start(Clock::now());
  while (completed < target) {
    for (std::uint64_t i = 0; i < lanes.size(); ++i) fill_lane(L, lanes[i], i, dog);
    receives.service(lanes, dog);  // -b send: keep the peer's receives posted
    const int n = ibv_poll_cq(L.cq, kPollBatch, wc);
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    for (int k = 0; k < n; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
        dog.completion_failed(wc[k]);
      Lane& lane = lanes[wc[k].wr_id >> kLaneShift];
      const std::uint64_t now_done = wc[k].wr_id & kCountMask;
      completed += now_done - lane.completed;
      lane.completed = now_done;
    }
    dog.watch(completed);
    if (n == 0) {
      dog.idle(completed);
      if constexpr (!Timed) continue;
    }
    // One timestamp per poll that reaped (and, in -D runs, per idle poll,
    // which must notice the deadline).
    if (window.passed(Clock::now(), completed, lanes)) [[unlikely]] {
      // The deadline: post only up to the next signaled request (the ones
      // after the last signaled one would never be reported), then drain.
      target = 0;
      for (Lane& lane : lanes) {
        const std::uint64_t past = lane.posted % L.signal_every;
        target += lane.target = lane.posted + (past ? L.signal_every - past : 0);
      }
    }
  }
  window.finish(Clock::now(), completed, lanes);
}

/// Ends a -D send run: one zero-length send per QP tells the receiver, which
/// does not know how many messages to expect, that this QP is done. A -b run
/// keeps serving the peer's messages meanwhile.
template <typename Receives>
void send_end_markers(const std::vector<Lane>& lanes, ibv_cq* cq, Receives& receives, Watchdog& dog) {
  ibv_send_wr wr{};
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  for (const Lane& lane : lanes)
    if (int rc = ibv_post_send(lane.qp, &wr, &bad); rc != 0) dog.post_failed(rc);
  ibv_wc wc;
  for (std::size_t reaped = 0; reaped < lanes.size();) {
    receives.service(lanes, dog);
    const int n = ibv_poll_cq(cq, 1, &wc);
    if (n < 0 || (n == 1 && wc.status != IBV_WC_SUCCESS)) [[unlikely]]
      dog.completion_failed(wc, n);
    if (n == 0) dog.idle(reaped);
    reaped += static_cast<std::size_t>(n);
  }
}

/// Whatever the peer still sends after this side is done (-b send).
template <typename Receives>
void finish_receives(const std::vector<Lane>& lanes, Receives& receives, Watchdog& dog) {
  while (!receives.done()) {
    receives.service(lanes, dog);
    dog.idle(receives.progress());
  }
}

/// The timed loops of one size, for one kind of receiving side.
template <typename Clock, typename Receives>
void run_size(Session& s, const BandwidthLoop& loop, std::vector<Lane>& warmup_lanes,
              std::vector<Lane>& lanes, BandwidthWindow& untimed, BandwidthWindow& window,
              Receives& receives, Watchdog& dog) {
  if (current_warmup(s) && !s.spec.duration_s)  // -D has its own warm-up margin
    bandwidth_loop<Clock, false>(loop, warmup_lanes, untimed, receives, dog);
  if (s.spec.duration_s) bandwidth_loop<Clock, true>(loop, lanes, window, receives, dog);
  else bandwidth_loop<Clock, false>(loop, lanes, window, receives, dog);
  if (s.spec.duration_s && uses_receives(s.spec))
    send_end_markers(lanes, s.cq.get(), receives, dog);
  finish_receives(lanes, receives, dog);
}

}  // namespace

SizeResult measure_bandwidth(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(s, bytes);
  if (server_is_passive(s.spec) && s.role == Role::server) return r;  // nothing to time

  const std::uint64_t depth = s.spec.tx_depth;
  const std::uint64_t post_list = std::clamp<std::uint64_t>(s.spec.post_list, 1, depth);
  // The chain is built before timing: copies of one prepared request, each
  // with its own scatter entry, linked in order.
  const auto op = prepare_operation(s, bytes);
  std::vector<ibv_sge> sges(post_list, op.sge);
  std::vector<ibv_send_wr> chain(post_list, op.wr);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    chain[i].sg_list = &sges[i];
    chain[i].send_flags = op.base_flags;
    chain[i].next = i + 1 < chain.size() ? &chain[i + 1] : nullptr;
  }
  const std::uint64_t signal_every = signal_interval(s.spec, bytes);
  const BandwidthLoop loop{s.cq.get(), chain.data(), op.base_flags, post_list, depth, signal_every};
  auto lanes_for = [&](std::uint64_t count) {
    std::vector<Lane> lanes;
    for (auto& qp : s.qps) lanes.push_back(Lane{qp.get(), 0, 0, count});
    return lanes;
  };
  const std::uint64_t unbounded = kCountMask;  // a -D run stops at its deadline
  auto warmup_lanes = lanes_for(current_warmup(s));
  auto lanes = lanes_for(s.spec.duration_s ? unbounded : s.spec.iterations);
  const std::size_t qps = s.qps.size();
  const std::uint64_t span = peak_span(depth, qps);
  BandwidthWindow untimed(BandwidthWindow::counted(span, qps));
  BandwidthWindow window =
      s.spec.duration_s ? BandwidthWindow::timed(s.spec.duration_s, clock.ticks_per_us, span, qps)
                        : BandwidthWindow::counted(span, qps);
  Watchdog dog(*s.peer, s.timeout, "completions");
  explain_receive_shortage(s, dog);
  const bool receives_too = s.spec.bidirectional && uses_receives(s.spec);
  with_clock(clock, [&]<typename Clock>() {
    if (!receives_too) {
      NoReceives none;
      run_size<Clock>(s, loop, warmup_lanes, lanes, untimed, window, none, dog);
      return;
    }
    ReceiveReplenisher receives(s.recv_cq.get(), prepare_receive(s), bytes,
                                (current_warmup(s) + s.spec.iterations) * s.qps.size(),
                                s.spec.duration_s != 0);
    receives.expect_markers(s.qps.size());
    run_size<Clock>(s, loop, warmup_lanes, lanes, untimed, window, receives, dog);
  });
  r.bandwidth = window.figures(bytes, clock.ticks_per_us);
  r.iterations = r.bandwidth->messages;
  if (s.spec.duration_s) r.warmup = 0;
  return r;
}

}  // namespace rdmabench::detail
