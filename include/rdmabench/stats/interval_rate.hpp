#pragma once
/// @file
/// The bandwidth of a stream sampled at interval edges, over a window: how
/// the background load of a latency test (--load-qps) reports its own rate.

#include <cstdint>
#include <vector>

namespace rdmabench {

/// At `seconds` (from any fixed origin), `bytes` had completed in all.
struct RateEdge {
  double seconds = 0;
  std::uint64_t bytes = 0;
};

/// Mean and sample standard deviation of per-interval rates, in Gb/s
/// (10^9 bits per second), and how many intervals they come from.
struct IntervalRate {
  double mean_gbps = 0;
  double stdev_gbps = 0;
  std::uint64_t intervals = 0;
  bool operator==(const IntervalRate&) const = default;
};

/// The rates between consecutive `edges` (in time order) whose interval lies
/// wholly inside [start_s, end_s]. A window too short to hold one gets the
/// rate between the last edge at or before it starts and the first at or
/// after it ends, as one interval; no such pair gives zero intervals.
IntervalRate interval_rate(const std::vector<RateEdge>& edges, double start_s, double end_s);

}  // namespace rdmabench
