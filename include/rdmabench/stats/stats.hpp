#pragma once
/// @file
/// Latency statistics over every kept sample (nearest-rank percentiles).

#include <cstddef>
#include <span>
#include <vector>

namespace rdmabench {

/// Summary of a set of latency samples, all in microseconds.
struct LatencySummary {
  std::size_t count = 0;
  double min = 0, max = 0, mean = 0, stdev = 0;
  double median = 0, p90 = 0, p99 = 0, p99_9 = 0, p99_99 = 0;
};

/// Nearest-rank percentile of ascending `sorted` samples: the smallest sample
/// such that at least `percent`% of all samples are <= it (rank ceil(p/100*N)).
/// `sorted` must not be empty; `percent` in (0, 100].
double percentile_nearest_rank(std::span<const double> sorted, double percent);

/// Summarises every sample (none dropped). Population standard deviation,
/// computed in double with a two-pass mean. Throws on an empty input.
LatencySummary summarize_latency(std::vector<double> samples_us);

}  // namespace rdmabench
