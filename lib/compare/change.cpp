// The verdict rule. Changes are judged in the figure's bad direction (up
// for a latency, down for a bandwidth): a regression needs the interval's
// least-bad end past the threshold, so the noise alone cannot make one at
// more than the interval's one-sided miss rate (2.5% at 95%), and less
// still once the threshold is added to the noise.

#include "rdmabench/compare/change.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rdmabench/compare/thresholds.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::compare {

namespace {

/// +1 when a rise is bad (latency, CPU, counters), -1 when a fall is.
double bad_sign(Better better) { return better == Better::lower ? 1.0 : -1.0; }

std::string worse_text(double bad_change, Better better) {
  if (std::isinf(bad_change)) return "from none to some";
  const double percent = std::fabs(bad_change) * 100;
  const std::string digits = percent >= 100 ? fmt::format("{:.0f}", percent) : fmt::format("{:.1f}", percent);
  return digits + "% " + (better == Better::lower ? "higher" : "lower");
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::regressed: return "regressed";
    case Verdict::improved: return "improved";
    case Verdict::same: break;
  }
  return "same";
}

Change judge_change(double point, std::optional<Interval> interval, double threshold, Better better) {
  Change c;
  c.point = point;
  c.interval = interval;
  c.threshold = threshold;
  c.better = better;
  const double sign = bad_sign(better);
  if (!interval) {
    const double bad = sign * point;
    c.verdict = bad > threshold ? Verdict::regressed : bad < -threshold ? Verdict::improved : Verdict::same;
    c.note = "one repeat a side: no noise estimate";
    return c;
  }
  const double least_bad = std::min(sign * interval->low, sign * interval->high);
  const double most_bad = std::max(sign * interval->low, sign * interval->high);
  if (least_bad > threshold) {
    c.verdict = Verdict::regressed;
  } else if (most_bad < -threshold) {
    c.verdict = Verdict::improved;
  } else if (most_bad > threshold) {
    // Inside the noise, but the noise reaches past the threshold: say so,
    // since "same" alone would read as "no regression this large".
    c.note = sign * point > threshold
                 ? "beyond the threshold, but inside the noise"
                 : fmt::format("the noise reaches {}: a regression past the threshold is not ruled out",
                               worse_text(most_bad, better));
  }
  return c;
}

Change measure_change(std::span<const double> old_values, std::span<const double> new_values, double threshold,
                      Better better, const BootstrapOptions& options, double floor) {
  require(!old_values.empty() && !new_values.empty(), "a change needs a value on each side");
  const double point =
      relative_change(std::max(floor, median_of(old_values)), std::max(floor, median_of(new_values)));
  std::optional<Interval> interval;
  if (old_values.size() >= kRepeatsForInterval && new_values.size() >= kRepeatsForInterval)
    interval = bootstrap_change(old_values, new_values, options, floor);
  Change c = judge_change(point, interval, threshold, better);
  if (!interval && (old_values.size() > 1 || new_values.size() > 1))
    c.note = fmt::format("one repeat on the {} side: no noise estimate", old_values.size() == 1 ? "old" : "new");
  return c;
}

double badness(const Change& change) { return bad_sign(change.better) * change.point / change.threshold; }

}  // namespace rdmabench::compare
