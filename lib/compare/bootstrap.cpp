// The bootstrap: resample each side's repeats with replacement, take the
// relative change of the resamples' medians, and read the interval off the
// sorted changes. Medians, not means: one repeat that met a busy host moves
// a mean as far as it likes, a median of five hardly. The generator is
// mt19937_64, whose output the standard fixes, and indices come from its
// top bits by multiplication, so a seed gives the same interval with every
// standard library (uniform_int_distribution's algorithm is each library's own).

#include "rdmabench/compare/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::compare {

namespace {

/// A uniform index below `n` (n < 2^32) from 32 random bits.
std::size_t index_below(std::mt19937_64& rng, std::size_t n) {
  const std::uint64_t bits = rng() >> 32;
  return static_cast<std::size_t>((bits * static_cast<std::uint64_t>(n)) >> 32);
}

/// The median of a resample of `values`, drawn into `scratch`.
double resampled_median(std::span<const double> values, std::vector<double>& scratch, std::mt19937_64& rng) {
  scratch.resize(values.size());
  for (double& v : scratch) v = values[index_below(rng, values.size())];
  return median_of(scratch);
}

/// The nearest-rank percentile interval of sorted `draws` (as the
/// project's latency percentiles: the value at rank ceil(p x n)).
Interval percentile_interval(std::vector<double>& draws, double confidence) {
  std::sort(draws.begin(), draws.end());
  const double tail = (1 - confidence) / 2;
  const auto rank = [&](double p) {
    const auto r = static_cast<std::size_t>(std::ceil(p * static_cast<double>(draws.size())));
    return std::clamp<std::size_t>(r, 1, draws.size()) - 1;
  };
  return {draws[rank(tail)], draws[rank(1 - tail)]};
}

void check_options(const BootstrapOptions& options) {
  require(options.resamples >= 100 && options.resamples <= 1000000,
          "bootstrap: " + std::to_string(options.resamples) + " resamples is out of range",
          "expected 100 to 1000000 (2000 is the default)");
  require(options.confidence >= 0.5 && options.confidence < 1,
          "bootstrap: a confidence of " + std::to_string(options.confidence) + " is out of range",
          "expected 0.5 up to below 1 (0.95 is the default)");
}

}  // namespace

double median_of(std::span<const double> values) {
  require(!values.empty(), "median of no values");
  std::vector<double> sorted(values.begin(), values.end());
  const std::size_t middle = sorted.size() / 2;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(middle), sorted.end());
  const double upper = sorted[middle];
  if (sorted.size() % 2) return upper;
  const double lower = *std::max_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2;
}

double relative_change(double old_value, double new_value) {
  if (old_value == 0) return new_value == 0 ? 0 : std::numeric_limits<double>::infinity();
  return new_value / old_value - 1;
}

Interval bootstrap_change(std::span<const double> old_values, std::span<const double> new_values,
                          const BootstrapOptions& options, double floor) {
  check_options(options);
  require(!old_values.empty() && !new_values.empty(), "bootstrap: a side has no values");
  std::mt19937_64 rng(options.seed);
  std::vector<double> draws(options.resamples), scratch;
  for (double& d : draws) {
    const double old_median = std::max(floor, resampled_median(old_values, scratch, rng));
    d = relative_change(old_median, std::max(floor, resampled_median(new_values, scratch, rng)));
  }
  return percentile_interval(draws, options.confidence);
}

Interval bootstrap_median(std::span<const double> values, const BootstrapOptions& options) {
  check_options(options);
  require(!values.empty(), "bootstrap: no values");
  std::mt19937_64 rng(options.seed);
  std::vector<double> draws(options.resamples), scratch;
  for (double& d : draws) d = resampled_median(values, scratch, rng);
  return percentile_interval(draws, options.confidence);
}

}  // namespace rdmabench::compare
