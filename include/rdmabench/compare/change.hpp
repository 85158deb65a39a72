#pragma once
/// @file
/// One figure's change between two sets of repeats, and its verdict:
/// `regressed` when the whole interval of the change lies beyond the
/// threshold in the figure's bad direction, `improved` when it lies beyond
/// it in the good direction, `same` otherwise (docs/compare.md, "The
/// verdict"). A change inside the noise is `same`, however large its point
/// estimate.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rdmabench/compare/bootstrap.hpp"
#include "rdmabench/compare/figures.hpp"

namespace rdmabench::compare {

enum class Verdict { regressed, same, improved };
/// "regressed", "same", "improved"
std::string_view verdict_name(Verdict verdict);

/// The fewest repeats on each side for a noise estimate: with one, a
/// resample is that one value every time.
inline constexpr std::size_t kRepeatsForInterval = 2;

struct Change {
  double point = 0;                 ///< relative change of the medians: new / old - 1
  std::optional<Interval> interval; ///< of the change; empty: no noise estimate (a side with one run)
  double threshold = 0;             ///< a fraction: 0.03 is 3%
  Better better = Better::higher;
  Verdict verdict = Verdict::same;
  /// Why the verdict is what it is, when that is not plain: "single run: no
  /// noise estimate", or that a regression beyond the threshold is not ruled
  /// out. Empty otherwise.
  std::string note;
};

/// The verdict on a change with (or, single runs, without) its interval.
Change judge_change(double point, std::optional<Interval> interval, double threshold, Better better);

/// Medians, the bootstrap interval when both sides have at least
/// kRepeatsForInterval values, and the verdict. Both sides need a value.
/// Medians below `floor` are taken as `floor` (FigureInfo::floor).
Change measure_change(std::span<const double> old_values, std::span<const double> new_values, double threshold,
                      Better better, const BootstrapOptions& options, double floor = 0);

/// How bad the point estimate is, in thresholds: 2 is twice the threshold
/// in the bad direction, -1 the threshold in the good one (reports sort
/// the worst first by it).
double badness(const Change& change);

}  // namespace rdmabench::compare
