#pragma once
// How the latency loops keep time: one timestamp per message either way.
// A counted run (-n) stores every stamp, so every sample is kept; a -D run
// folds each interval into a fixed-size histogram, leaving out a warm-up and
// a cool-down margin of a tenth of the duration, so memory does not grow with
// the run. The loops are templates over these, chosen once per run, so no
// branch on the mode sits inside them.
#include <fmt/format.h>

#include <cstdint>

#include "loops/loop_kit.hpp"
#include "rdmabench/stats/histogram.hpp"
#include "rdmabench/report/result.hpp"

namespace rdmabench::detail {

/// Every stamp of `warmup + iterations` messages, warmup excluded.
struct CountedRecorder {
  /// Both sides know the count: no end marker is sent.
  static constexpr bool kEndsWithMarker = false;
  std::uint64_t* stamps;  ///< iterations + 1, allocated before timing
  std::uint64_t warmup;
  std::uint64_t total;  ///< warmup + timed iterations

  /// Is message `i`, posted at `now`, the last one? (Counted: either side;
  /// timed: the initiator decides, and marks the end for the responder.)
  bool last(std::uint64_t i, std::uint64_t /*now*/) const { return i + 1 == total; }
  void record(std::uint64_t i, std::uint64_t now) {
    // A responder counts what the peer sends: one message past the agreed
    // count is a protocol error, never a write past the stamps.
    if (i >= total) [[unlikely]] overrun(i, total);
    if (i >= warmup) stamps[i - warmup] = now;
  }
  [[noreturn, gnu::noinline]] static void overrun(std::uint64_t i, std::uint64_t total) {
    throw Error(fmt::format("protocol error: the peer sent message {} of a run agreed at {} "
                            "(warm-up included)",
                            i + 1, total));
  }
  /// Initiator: the end of the last round trip.
  void finish(std::uint64_t now) { stamps[total - warmup] = now; }
};

/// Intervals between consecutive stamps inside the window, in a histogram.
struct TimedRecorder {
  static constexpr bool kEndsWithMarker = true;
  Histogram* histogram;
  std::uint64_t duration_ticks;
  std::uint64_t margin_ticks = 0;
  std::uint64_t begin = 0, end = 0, deadline = 0;  ///< set at the first stamp
  std::uint64_t previous = 0;

  TimedRecorder(Histogram& h, std::uint32_t duration_s, double ticks_per_us, double margin_share)
      : histogram(&h),
        duration_ticks(static_cast<std::uint64_t>(duration_s * 1e6 * ticks_per_us)),
        margin_ticks(static_cast<std::uint64_t>(static_cast<double>(duration_ticks) * margin_share)) {}

  bool last(std::uint64_t i, std::uint64_t now) const { return i > 0 && now >= deadline; }
  void record(std::uint64_t i, std::uint64_t now) {
    if (i == 0) [[unlikely]] {
      begin = now + margin_ticks;
      end = now + duration_ticks - margin_ticks;
      deadline = now + duration_ticks;
    } else if (previous >= begin && now < end) {
      histogram->record(now - previous);
    }
    previous = now;
  }
  void finish(std::uint64_t /*now*/) {}
};

/// A -D latency result from the histogram: `divisor` 2 for one-way figures.
/// Throws Error when the window caught no sample.
SizeResult histogram_result(SizeResult header, const Histogram& histogram, double ticks_per_us,
                            double divisor);

/// Runs a ping-pong size under the recorder the spec calls for and returns
/// its one-way result. `loop` is called as loop.template operator()<Clock>(recorder).
template <typename Loop>
SizeResult time_ping_pong(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock, Loop loop) {
  if (v.spec.duration_s) {
    Histogram histogram;  // allocated before timing
    TimedRecorder recorder(histogram, v.spec.duration_s, clock.ticks_per_us, untimed_margin_share(v.spec));
    with_clock(clock, [&]<typename Clock>() { loop.template operator()<Clock>(recorder); });
    return histogram_result(result_header(v, bytes), histogram, clock.ticks_per_us, 2.0);
  }
  std::vector<std::uint64_t> stamps(v.spec.iterations + 1);  // allocated before timing
  CountedRecorder recorder{stamps.data(), v.warmup(), v.warmup() + v.spec.iterations};
  with_clock(clock, [&]<typename Clock>() { loop.template operator()<Clock>(recorder); });
  return ping_pong_result(v, bytes, stamps, clock);
}

}  // namespace rdmabench::detail
