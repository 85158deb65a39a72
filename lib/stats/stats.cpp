#include "rdmabench/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

double percentile_nearest_rank(std::span<const double> sorted, double percent) {
  require(!sorted.empty(), "percentile of an empty sample set");
  require(percent > 0 && percent <= 100, "percentile must be in (0, 100]");
  const double n = static_cast<double>(sorted.size());
  // The relative guard keeps exact ranks exact: 99% of 100 samples is rank
  // 99, not 100, although 0.99 * 100 is 99.00000000000001 in binary; it must
  // scale with n, or large runs pick the next rank.
  const double exact = percent * n / 100.0;
  auto rank = static_cast<std::size_t>(std::ceil(exact - exact * 1e-12));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

LatencySummary summarize_latency(std::vector<double> samples_us) {
  require(!samples_us.empty(), "no latency samples to summarise");
  std::sort(samples_us.begin(), samples_us.end());
  LatencySummary s;
  s.count = samples_us.size();
  s.min = samples_us.front();
  s.max = samples_us.back();
  const double n = static_cast<double>(s.count);
  s.mean = std::accumulate(samples_us.begin(), samples_us.end(), 0.0) / n;
  double squares = 0;
  for (double x : samples_us) squares += (x - s.mean) * (x - s.mean);
  s.stdev = std::sqrt(squares / n);
  s.median = percentile_nearest_rank(samples_us, 50);
  s.p90 = percentile_nearest_rank(samples_us, 90);
  s.p99 = percentile_nearest_rank(samples_us, 99);
  s.p99_9 = percentile_nearest_rank(samples_us, 99.9);
  s.p99_99 = percentile_nearest_rank(samples_us, 99.99);
  return s;
}

}  // namespace rdmabench
