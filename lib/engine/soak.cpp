#include "engine/soak.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rdmabench/control/wire.hpp"
#include "rdmabench/system/stop_signals.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

namespace {

// Outside any barrier number a run uses (2 + 2 x round, and 1,000,000 + 4 x
// round for --validate), so that a peer that skipped a barrier is caught.
constexpr std::uint32_t kSoakGoesOn = 0xFFFF'FF10;
constexpr std::uint32_t kSoakStops = 0xFFFF'FF11;

/// The worse of two periods' latency: the one with the higher p99.
void keep_worst(std::optional<LatencySummary>& worst, const LatencySummary& period) {
  if (!worst || period.p99 > worst->p99) worst = period;
}

/// `into` += `period`, counter by counter.
void add_counters(std::optional<CounterDeltas>& into, const CounterDeltas& period) {
  if (!into) {
    into = period;
    return;
  }
  into->counters_read = std::min(into->counters_read, period.counters_read);
  for (const auto& [name, delta] : period.moved) into->moved[name] += delta;
  for (const auto& name : period.went_backwards)
    if (std::find(into->went_backwards.begin(), into->went_backwards.end(), name) ==
        into->went_backwards.end())
      into->went_backwards.push_back(name);
}

}  // namespace

SoakDecision agree_to_go_on(Session& s, bool this_side_goes_on) {
  s.peer->send(wire::Barrier{this_side_goes_on ? kSoakGoesOn : kSoakStops});
  const auto theirs =
      s.peer->receive_expected<wire::Barrier>(s.timeout, "whether the soak goes on").sequence;
  require(theirs == kSoakGoesOn || theirs == kSoakStops,
          fmt::format("protocol error: after a soak period the peer sent barrier {}, not {} (go on) "
                      "or {} (stop)",
                      theirs, kSoakGoesOn, kSoakStops));
  SoakDecision d;
  d.go_on = this_side_goes_on && theirs == kSoakGoesOn;
  if (!this_side_goes_on) d.stopped_by = fmt::format("{} on this side", StopSignals::received());
  else if (!d.go_on) d.stopped_by = "a stop signal on the peer";
  return d;
}

void SoakTotals::add(const SizeResult& period) {
  SizeResult& whole = sum_.whole;
  ++sum_.periods;
  whole.bytes = period.bytes;
  whole.iterations += period.iterations;
  if (period.bandwidth) {
    const BandwidthFigures& b = *period.bandwidth;
    BandwidthFigures& all = whole.bandwidth ? *whole.bandwidth : whole.bandwidth.emplace();
    all.seconds += b.seconds;
    all.messages += b.messages;
    all.peak_mb_per_s = std::max(all.peak_mb_per_s, b.peak_mb_per_s);
    if (all.seconds > 0) {
      const double us = all.seconds * 1e6;
      all.average_mb_per_s = static_cast<double>(all.messages * period.bytes) / us;
      all.message_rate_mpps = static_cast<double>(all.messages) / us;
    }
  }
  if (period.over_time) {
    // The periods' intervals end to end. Each period's partial last
    // interval and the barriers between periods (a fraction of a
    // millisecond) are not in the series: the periods' records say them.
    const auto& t = *period.over_time;
    interval_ms_ = t.interval_ms;
    cut_short_ = cut_short_ || t.cut_short;
    for (std::size_t k = 0; k < t.mb_per_s.size(); ++k) {
      const RateEdge& last = edges_.back();
      const double seconds = t.lengths_ms[k] / 1e3;
      edges_.push_back({last.seconds + seconds,
                        last.bytes + static_cast<std::uint64_t>(t.mb_per_s[k] * 1e6 * seconds)});
    }
  }
  if (period.latency) keep_worst(whole.latency, *period.latency);
  if (period.histogram_relative_error) whole.histogram_relative_error = period.histogram_relative_error;
  if (period.counters) add_counters(whole.counters, *period.counters);
}

SoakSummary SoakTotals::summary(std::string stopped_by) const {
  SoakSummary s = sum_;
  s.stopped_by = std::move(stopped_by);
  s.whole.over_time = bandwidth_over_time(edges_, interval_ms_, /*last_is_tail=*/false, cut_short_);
  return s;
}

}  // namespace rdmabench::detail
