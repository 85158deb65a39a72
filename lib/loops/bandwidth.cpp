// Bandwidth of writes, reads, sends or atomics from this side: tx-depth
// operations in flight on each of the -q queue pairs, one in `signal_every`
// signaled, completions polled in batches from the CQ they share. A count
// run times all its operations; a -D run times a window that leaves out a
// warm-up and a cool-down margin. A passive server takes no part; it waits
// at the barrier that ends the size. With --rate the client posts only what
// the pacer has released, shared among the QPs in turn, and the report
// gives the achieved rate beside the target.
#include <algorithm>
#include <limits>
#include <optional>

#include "loops/bandwidth_window.hpp"
#include "loops/loop_kit.hpp"
#include "loops/loops.hpp"
#include "loops/lane_spread.hpp"
#include "loops/receive_replenisher.hpp"
#include "rdmabench/pacing/achieved_rate.hpp"
#include "rdmabench/pacing/pacer.hpp"
#include "rdmabench/system/stop_signals.hpp"
#include "loops/poll_batch.hpp"

namespace rdmabench::detail {

namespace {

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

/// How many more requests a lane may post now: its queue's free slots, and
/// no more than its target.
inline std::uint64_t lane_room(const BandwidthLoop& L, const Lane& lane) {
  return std::min(lane.target - lane.posted, L.depth - (lane.posted - lane.completed));
}

/// Posts `room` requests on a lane in chains of up to post_list; the last
/// chain may be shorter. Only a chain's last request can be signaled: when
/// the chain crosses a multiple of signal_every, or ends the lane's run.
inline void post_chains(const BandwidthLoop& L, Lane& lane, std::uint64_t index, std::uint64_t room,
                        Watchdog& dog) {
  ibv_send_wr* bad = nullptr;
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

/// The closed loop's pace: every lane's free queue slots are filled on
/// every turn, as fast as the fabric completes them.
struct Unpaced {
  void start(std::uint64_t /*now*/) {}
  template <typename Clock>
  void fill(const BandwidthLoop& L, std::vector<Lane>& lanes, Watchdog& dog) {
    for (std::uint64_t i = 0; i < lanes.size(); ++i)
      post_chains(L, lanes[i], i, lane_room(L, lanes[i]), dog);
  }
};

/// --rate: no more is posted than the pacer has released. What it releases
/// on a turn is shared among the lanes in turn (loops/lane_spread.hpp), each
/// still bounded by its queue; what finds no room stays due for the next
/// turn. A turn that finds nothing due reads the clock and posts nothing.
class Paced {
 public:
  /// `ticks_per_message` of this size (a bit or byte rate is a different
  /// message rate at each size); `burst` caps one turn's release.
  Paced(double ticks_per_message, std::uint64_t burst, std::size_t lanes)
      : ticks_per_message_(ticks_per_message), burst_(burst), room_(lanes), share_(lanes) {}

  /// The schedule starts with the loop: message 0 is due at `now`.
  void start(std::uint64_t now) {
    pacer_.emplace(now, ticks_per_message_, burst_);
    next_lane_ = 0;
  }

  template <typename Clock>
  void fill(const BandwidthLoop& L, std::vector<Lane>& lanes, Watchdog& dog) {
    const std::uint64_t due = pacer_->due(Clock::now());
    if (due == 0) return;
    for (std::size_t i = 0; i < lanes.size(); ++i) room_[i] = lane_room(L, lanes[i]);
    const std::uint64_t given = spread_round_robin(due, room_, share_, next_lane_);
    for (std::size_t i = 0; i < lanes.size(); ++i)
      if (share_[i] > 0) post_chains(L, lanes[i], i, share_[i], dog);
    pacer_->mark_posted(given);
  }

 private:
  double ticks_per_message_;
  std::uint64_t burst_;
  std::optional<Pacer> pacer_;
  std::vector<std::uint64_t> room_, share_;  // per lane, allocated before timing
  std::size_t next_lane_ = 0;
};

/// Runs every lane to its target (a count run: all timed; a -D run: the
/// window decides when to stop and what is timed). `Timed` and `Pace`
/// (Unpaced or Paced) are fixed per run, so the loop carries no branch on
/// the mode.
template <typename Clock, bool Timed, typename Receives, typename Pace>
void bandwidth_loop(const BandwidthLoop& L, std::vector<Lane>& lanes, BandwidthWindow& window,
                    Receives& receives, Pace& pace, Watchdog& dog) {
  ibv_wc wc[kPollBatch];
  std::uint64_t completed = 0, target = 0;
  for (const Lane& lane : lanes) target += lane.target;
  const std::uint64_t start = Clock::now();
  window.start(start);
  pace.start(start);
  while (completed < target) {
    pace.template fill<Clock>(L, lanes, dog);
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

/// The timed loops of one size, for one kind of receiving side and pace.
/// The warm-up keeps the pace too, so that the timed part starts from the
/// state the paced traffic leaves, not from a full-speed burst.
template <typename Clock, typename Receives, typename Pace>
void run_size(const LoopView& v, const BandwidthLoop& loop, std::vector<Lane>& warmup_lanes,
              std::vector<Lane>& lanes, BandwidthWindow& untimed, BandwidthWindow& window,
              Receives& receives, Pace& pace, Watchdog& dog) {
  if (v.warmup() && !v.spec.duration_s)  // -D has its own warm-up margin
    bandwidth_loop<Clock, false>(loop, warmup_lanes, untimed, receives, pace, dog);
  if (v.spec.duration_s) bandwidth_loop<Clock, true>(loop, lanes, window, receives, pace, dog);
  else bandwidth_loop<Clock, false>(loop, lanes, window, receives, pace, dog);
  if (v.spec.duration_s && uses_receives(v.spec))
    send_end_markers(lanes, v.cq.get(), receives, dog);
  finish_receives(lanes, receives, dog);
}

/// The pacer's interval at this size: "10Gbps" is a different message rate
/// for every size of a sweep.
double paced_ticks_per_message(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  return ticks_per_message(messages_per_second(v.pacing->rate, bytes), clock.ticks_per_us);
}

}  // namespace

SizeResult measure_bandwidth(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(v, bytes);
  if (server_is_passive(v.spec) && v.role == Role::server) return r;  // nothing to time

  const std::uint64_t depth = v.spec.tx_depth;
  const std::uint64_t post_list = std::clamp<std::uint64_t>(v.spec.post_list, 1, depth);
  // The chain is built before timing: copies of one prepared request, each
  // with its own scatter entry, linked in order.
  const auto op = prepare_operation(v, bytes);
  std::vector<ibv_sge> sges(post_list, op.sge);
  std::vector<ibv_send_wr> chain(post_list, op.wr);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    chain[i].sg_list = &sges[i];
    chain[i].send_flags = op.base_flags;
    chain[i].next = i + 1 < chain.size() ? &chain[i + 1] : nullptr;
  }
  // A paced run signals every message unless -Q says otherwise: the window
  // counts completions when reaped, so one per N messages puts each of its
  // edges up to N messages off, a visible error in the achieved rate of a
  // slow paced run; and below the fabric's capacity a completion a message
  // costs nothing the rate would show.
  const std::uint64_t signal_every =
      v.pacing && !v.spec.cq_mod ? 1 : signal_interval(v.spec, bytes);
  const BandwidthLoop loop{v.cq.get(), chain.data(), op.base_flags, post_list, depth, signal_every};
  auto lanes_for = [&](std::uint64_t count) {
    std::vector<Lane> lanes;
    for (auto& qp : v.qps) lanes.push_back(Lane{qp.get(), 0, 0, count});
    return lanes;
  };
  const std::uint64_t unbounded = kCountMask;  // a -D run stops at its deadline
  auto warmup_lanes = lanes_for(v.warmup());
  auto lanes = lanes_for(v.spec.duration_s ? unbounded : v.spec.iterations);
  const std::size_t qps = v.qps.size();
  const std::uint64_t span = peak_span(depth, qps);
  BandwidthWindow untimed(BandwidthWindow::counted(span, qps));
  BandwidthWindow window =
      v.spec.duration_s ? BandwidthWindow::timed(v.spec.duration_s, clock.ticks_per_us, span, qps,
                                                 untimed_margin_share(v.spec))
                        : BandwidthWindow::counted(span, qps);
  if (v.spec.run_infinitely) window.stop_early_on(StopSignals::flag());
  window.keep_intervals(v.interval, v.spec.duration_s, clock.ticks_per_us);
  Watchdog dog(v.peer, v.timeout, "completions");
  explain_receive_shortage(v, dog);
  const bool receives_too = v.spec.bidirectional && uses_receives(v.spec);
  with_clock(clock, [&]<typename Clock>() {
    auto run_with = [&](auto& pace) {
      if (!receives_too) {
        NoReceives none;
        run_size<Clock>(v, loop, warmup_lanes, lanes, untimed, window, none, pace, dog);
        return;
      }
      ReceiveReplenisher receives(v.recv_cq.get(), prepare_receive(v), receive_queues(v), bytes,
                                  (v.warmup() + v.spec.iterations) * v.qps.size(),
                                  v.spec.duration_s != 0);
      receives.expect_markers(v.qps.size());
      run_size<Clock>(v, loop, warmup_lanes, lanes, untimed, window, receives, pace, dog);
    };
    if (v.pacing) {
      Paced pace(paced_ticks_per_message(v, bytes, clock), v.pacing->burst, qps);
      run_with(pace);
    } else {
      Unpaced pace;
      run_with(pace);
    }
  });
  r.bandwidth = window.figures(bytes, clock.ticks_per_us);
  r.over_time = window.over_time(bytes, clock.ticks_per_us);
  r.iterations = r.bandwidth->messages;
  if (v.pacing)
    r.bandwidth_rate = BandwidthRate{achieved_rate(v.pacing->rate, r.bandwidth->messages, bytes,
                                                   window.elapsed_ticks(), clock.ticks_per_us),
                                     v.pacing->burst};
  if (v.spec.duration_s) r.warmup = 0;
  return r;
}

}  // namespace rdmabench::detail
