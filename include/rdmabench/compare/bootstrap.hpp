#pragma once
/// @file
/// The noise in a change: a seeded bootstrap of the relative change of
/// medians between two sets of repeats, with a percentile interval
/// (docs/compare.md, "The method").

// fmt/format.h before the namespace below exists: fmt calls a compare() of
// its own unqualified, and a file that says `using namespace rdmabench`
// would otherwise meet this namespace there when a unity batch includes
// fmt/format.h for the first time after it.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace rdmabench::compare {

struct Interval {
  double low = 0;
  double high = 0;
};

struct BootstrapOptions {
  std::size_t resamples = 2000;
  double confidence = 0.95;  ///< two-sided: the interval leaves (1 - confidence) / 2 out at each end
  std::uint64_t seed = 1;
};

/// The median of `values` (the mean of the middle two for an even count);
/// `values` must not be empty.
double median_of(std::span<const double> values);

/// new / old - 1: 0.05 is 5% more. An old figure of 0 gives 0 when the new
/// one is 0 too, else +infinity (a counter that never moved now moves).
double relative_change(double old_value, double new_value);

/// The percentile interval of relative_change(median(old*), median(new*))
/// over `resamples` pairs of resamples, each side drawn with replacement
/// from its own values with a generator seeded by `seed` (the same inputs
/// and seed give the same interval). Both sides need at least one value.
/// Medians below `floor` are taken as `floor` (FigureInfo::floor).
Interval bootstrap_change(std::span<const double> old_values, std::span<const double> new_values,
                          const BootstrapOptions& options, double floor = 0);

/// The percentile interval of one side's median, the same way (the plots'
/// whiskers).
Interval bootstrap_median(std::span<const double> values, const BootstrapOptions& options);

}  // namespace rdmabench::compare
