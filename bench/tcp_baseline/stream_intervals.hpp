#pragma once
// A stream test's per-interval figures, from the byte counts sampled at each
// interval's edge: what shows whether the bandwidth was stable.

#include <nlohmann/json.hpp>
#include <vector>

#include "rdmabench/stats/interval_rate.hpp"

namespace rdmabench::tcp {

struct IntervalFigures {
  nlohmann::json intervals = nlohmann::json::array();  ///< [{"seconds": s, "MBps": r}, ...]
  double best_mb_per_s = 0;                            ///< the best interval's rate
};

/// One interval between each two consecutive `edges` (in time order, the
/// first at the start): its length and its rate in MB/s (10^6 bytes).
IntervalFigures interval_figures(const std::vector<RateEdge>& edges);

}  // namespace rdmabench::tcp
