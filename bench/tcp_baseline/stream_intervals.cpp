#include "tcp_baseline/stream_intervals.hpp"

#include <algorithm>

namespace rdmabench::tcp {

IntervalFigures interval_figures(const std::vector<RateEdge>& edges) {
  IntervalFigures f;
  for (std::size_t i = 1; i < edges.size(); ++i) {
    const double seconds = edges[i].seconds - edges[i - 1].seconds;
    const double mbps = static_cast<double>(edges[i].bytes - edges[i - 1].bytes) / seconds / 1e6;
    f.best_mb_per_s = std::max(f.best_mb_per_s, mbps);
    f.intervals.push_back({{"seconds", seconds}, {"MBps", mbps}});
  }
  return f;
}

}  // namespace rdmabench::tcp
