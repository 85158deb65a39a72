#include "microbench/piece_timing.hpp"

#include <algorithm>

namespace rdmabench::microbench {

Spread spread_of(std::vector<double> figures) {
  std::sort(figures.begin(), figures.end());
  const std::size_t n = figures.size();
  const double median = n % 2 ? figures[n / 2] : (figures[n / 2 - 1] + figures[n / 2]) / 2;
  return {median, figures.front(), figures.back()};
}

}  // namespace rdmabench::microbench
