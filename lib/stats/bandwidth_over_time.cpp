#include "rdmabench/stats/bandwidth_over_time.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "rdmabench/stats/stats.hpp"

namespace rdmabench {

namespace {

/// Sample standard deviation over mean; 0 for a mean of 0 (nothing moved).
double coefficient_of_variation(const std::vector<double>& values) {
  const double n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (mean <= 0 || values.size() < 2) return 0;
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / (n - 1)) / mean;
}

}  // namespace

std::optional<BandwidthOverTime> bandwidth_over_time(const std::vector<RateEdge>& edges,
                                                     double interval_ms, bool last_is_tail,
                                                     bool cut_short) {
  const std::size_t closing = edges.size() - (last_is_tail && !edges.empty() ? 1 : 0);
  BandwidthOverTime t;
  t.interval_ms = interval_ms;
  t.cut_short = cut_short;
  for (std::size_t i = 1; i < closing; ++i) {
    const double seconds = edges[i].seconds - edges[i - 1].seconds;
    if (seconds <= 0) continue;  // two edges at one tick: no interval between them
    t.lengths_ms.push_back(seconds * 1e3);
    t.mb_per_s.push_back(static_cast<double>(edges[i].bytes - edges[i - 1].bytes) / seconds / 1e6);
  }
  if (t.mb_per_s.size() < 2) return std::nullopt;
  if (last_is_tail && edges.size() >= 2)
    t.tail_ms = (edges.back().seconds - edges[edges.size() - 2].seconds) * 1e3;
  std::vector<double> sorted = t.mb_per_s;
  std::sort(sorted.begin(), sorted.end());
  t.min_mb_per_s = sorted.front();
  t.p1_mb_per_s = percentile_nearest_rank(sorted, 1);
  t.p50_mb_per_s = percentile_nearest_rank(sorted, 50);
  t.cv = coefficient_of_variation(t.mb_per_s);
  return t;
}

}  // namespace rdmabench
