#pragma once
/// @file
/// Bandwidth over time: the rates of consecutive intervals of one run
/// (--interval, 100 ms by default) and how they spread. An average hides a
/// link that stalls now and then; the minimum and p1 of the intervals show
/// it, and the coefficient of variation says how steady the run was.

#include <optional>
#include <vector>

#include "rdmabench/stats/interval_rate.hpp"

namespace rdmabench {

struct BandwidthOverTime {
  double interval_ms = 0;          ///< the nominal length (--interval)
  std::vector<double> mb_per_s;    ///< each whole interval's rate, in time order
  std::vector<double> lengths_ms;  ///< each one's measured length: a stall lengthens one
  /// The partial interval between the last whole one and the end of the
  /// timed part; left out of the figures below (said in the report).
  double tail_ms = 0;
  /// The series reached its capacity (kept before timing, so that the loop
  /// never allocates) and later intervals were not kept.
  bool cut_short = false;
  double min_mb_per_s = 0;
  double p1_mb_per_s = 0;   ///< nearest rank, as the latency percentiles
  double p50_mb_per_s = 0;
  double cv = 0;  ///< sample standard deviation / mean of the rates; 0: perfectly steady
};

/// The figures of the intervals between consecutive `edges` (time in
/// seconds and bytes done at each, in time order). The first edge opens
/// the series; each later one closes a whole interval, except the last,
/// which closes the tail when `last_is_tail`. Empty with fewer than two
/// whole intervals, which give no spread to speak of.
std::optional<BandwidthOverTime> bandwidth_over_time(const std::vector<RateEdge>& edges,
                                                     double interval_ms, bool last_is_tail,
                                                     bool cut_short);

}  // namespace rdmabench
