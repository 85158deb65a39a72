#include "microbench/piece_timing.hpp"

#include <algorithm>

namespace rdmabench::microbench {

namespace {

/// The figure `fraction` of the way from the lowest to the highest, between
/// neighbours where it falls between two.
double quantile(const std::vector<double>& sorted, double fraction) {
  const double at = fraction * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  if (below + 1 >= sorted.size()) return sorted.back();
  const double part = at - static_cast<double>(below);
  return sorted[below] * (1 - part) + sorted[below + 1] * part;
}

}  // namespace

Spread spread_of(std::vector<double> figures) {
  std::sort(figures.begin(), figures.end());
  return {quantile(figures, 0.5), quantile(figures, 0.25), quantile(figures, 0.75)};
}

}  // namespace rdmabench::microbench
