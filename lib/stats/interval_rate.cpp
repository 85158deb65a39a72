#include "rdmabench/stats/interval_rate.hpp"

#include <cmath>

namespace rdmabench {

namespace {

double gbps(const RateEdge& from, const RateEdge& to) {
  const double seconds = to.seconds - from.seconds;
  return seconds > 0 ? static_cast<double>(to.bytes - from.bytes) * 8 / seconds / 1e9 : 0;
}

/// The pair of edges that brackets [start_s, end_s], as one rate.
IntervalRate bracketing_rate(const std::vector<RateEdge>& edges, double start_s, double end_s) {
  const RateEdge* before = nullptr;
  const RateEdge* after = nullptr;
  for (const auto& e : edges) {
    if (e.seconds <= start_s) before = &e;
    if (e.seconds >= end_s && !after) after = &e;
  }
  if (!before || !after || after->seconds <= before->seconds) return {};
  return IntervalRate{gbps(*before, *after), 0, 1};
}

}  // namespace

IntervalRate interval_rate(const std::vector<RateEdge>& edges, double start_s, double end_s) {
  std::vector<double> rates;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i)
    if (edges[i].seconds >= start_s && edges[i + 1].seconds <= end_s)
      rates.push_back(gbps(edges[i], edges[i + 1]));
  if (rates.empty()) return bracketing_rate(edges, start_s, end_s);
  double sum = 0;
  for (double r : rates) sum += r;
  const double mean = sum / static_cast<double>(rates.size());
  double squares = 0;
  for (double r : rates) squares += (r - mean) * (r - mean);
  const double stdev = rates.size() > 1 ? std::sqrt(squares / static_cast<double>(rates.size() - 1)) : 0;
  return IntervalRate{mean, stdev, rates.size()};
}

}  // namespace rdmabench
