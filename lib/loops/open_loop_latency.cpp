// Open-loop read and atomic latency (--rate): messages leave on a fixed
// schedule (rdmabench/engine/pacer.hpp), up to -t of them in flight, each
// signaled. A message's response time counts from when it was due, its
// service time from when it was posted. A closed loop sends the next message
// only when the last one is back, so a stall of T shows as one slow sample
// although it held up T x rate messages (coordinated omission); here each of
// them is charged from its own due time. The server's CPU takes no part.
//
// Which messages count: a counted run (-n) posts warm-up + iterations and
// times those after the warm-up, each kept (exact percentiles, and the three
// times of every message for --dump-samples); a -D run posts what the
// schedule holds until the duration ends and times those due inside the
// window that leaves out the first and last tenth, into histograms.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/engine_internal.hpp"
#include "loops/open_loop_sinks.hpp"
#include "rdmabench/engine/pacer.hpp"

namespace rdmabench::detail {

namespace {

constexpr int kPollBatch = 16;

/// When a message's post and its completion are kept: its due time and
/// actual post, in a ring of -t slots (at most that many are in flight).
struct Posted {
  std::uint64_t intended = 0, posted = 0;
};

struct OpenLoopQueue {
  ibv_qp* qp;
  ibv_cq* cq;
  PreparedOperation op;
};

/// Posts what the schedule has due and the window allows; returns how many.
template <typename Clock>
std::uint64_t post_due(const OpenLoopQueue& q, ibv_send_wr& wr, Pacer& pacer, std::vector<Posted>& ring,
                       std::uint64_t in_flight, std::uint64_t left, Watchdog& dog) {
  const std::uint64_t room = std::min<std::uint64_t>(ring.size() - in_flight, left);
  if (room == 0) return 0;
  const std::uint64_t k = std::min(pacer.due(Clock::now()), room);
  ibv_send_wr* bad = nullptr;
  for (std::uint64_t j = 0; j < k; ++j) {
    const std::uint64_t i = pacer.posted();
    ring[i % ring.size()] = {pacer.intended(i), Clock::now()};
    wr.wr_id = i;
    if (int rc = ibv_post_send(q.qp, &wr, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    pacer.mark_posted(1);
  }
  return k;
}

template <typename Clock, typename Sink>
void open_loop_round_trip(const OpenLoopQueue& q, Pacer& pacer, std::vector<Posted>& ring, Sink& sink,
                          Watchdog& dog) {
  ibv_send_wr wr = q.op.wr;
  ibv_sge sge = q.op.sge;
  wr.sg_list = &sge;
  wr.send_flags = IBV_SEND_SIGNALED;  // every message's completion is its response
  ibv_wc wc[kPollBatch];
  std::uint64_t completed = 0;
  for (;;) {
    const std::uint64_t posted = pacer.posted();
    if (sink.keep_posting(posted, Clock::now()))
      post_due<Clock>(q, wr, pacer, ring, posted - completed, sink.total() - posted, dog);
    else if (completed == posted)
      break;
    const int n = ibv_poll_cq(q.cq, kPollBatch, wc);
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    if (n == 0) {
      if (pacer.posted() > completed) dog.idle(completed);
      dog.watch(completed);  // the target's NIC answers even with its process stopped
      continue;
    }
    const std::uint64_t now = Clock::now();
    for (int k = 0; k < n; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
        dog.completion_failed(wc[k]);
      // One RC queue pair completes in order: the k-th completion is the
      // oldest message in flight.
      const Posted& p = ring[completed % ring.size()];
      sink.record(completed, p.intended, p.posted, now);
      ++completed;
    }
  }
}

/// The schedule's pace in clock ticks, and the late threshold: a message is
/// late when it left more than one interval after its time, or 10 usec if
/// that is shorter (at a slow rate one interval would excuse a long wait).
struct Schedule {
  double per_second;
  double ticks_per_message;
  std::uint64_t late_threshold_ticks;
};

Schedule schedule_for(const Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  const double per_s = messages_per_second(s.pacing->rate, bytes);
  const double interval = ticks_per_message(per_s, clock.ticks_per_us);
  const double cap = 10.0 * clock.ticks_per_us;
  return {per_s, interval, static_cast<std::uint64_t>(std::min(interval, cap))};
}

}  // namespace

SizeResult measure_open_loop_round_trip(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(s, bytes);
  const OpenLoopQueue q{s.qps.front().get(), s.cq.get(), prepare_operation(s, bytes)};
  Watchdog dog(*s.peer, s.timeout, "the completion");
  const Schedule schedule = schedule_for(s, bytes, clock);
  std::vector<Posted> ring(std::max<std::uint32_t>(s.spec.tx_depth, 1));  // allocated before timing
  auto run = [&](auto& sink) {
    with_clock(clock, [&]<typename Clock>() {
      Pacer pacer(Clock::now(), schedule.ticks_per_message, s.pacing->burst);
      sink.start(pacer.intended(0));
      open_loop_round_trip<Clock>(q, pacer, ring, sink, dog);
    });
  };
  if (s.spec.duration_s) {
    TimedOpenLoopSink sink(s.spec.duration_s, schedule.ticks_per_message, schedule.late_threshold_ticks,
                           clock.ticks_per_us);
    run(sink);
    return sink.result(std::move(r), *s.pacing, schedule.per_second, clock.ticks_per_us);
  }
  CountedOpenLoopSink sink(current_warmup(s), s.spec.iterations, schedule.late_threshold_ticks);
  run(sink);
  return sink.result(std::move(r), *s.pacing, schedule.per_second, clock.ticks_per_us);
}

}  // namespace rdmabench::detail
