#pragma once
/// @file
/// One name for each figure, with its unit in the name, wherever a figure is
/// written: the pair JSON (`latency.p99_9_us`), the pair CSV and the sweep's
/// records and CSVs (`lat_p99_9_us`: the group's prefix, then the same
/// name). docs/json-output.md lists them; CHANGELOG.md the old names.

#include <array>
#include <string>

#include "rdmabench/report/result.hpp"
#include "rdmabench/stats/stats.hpp"

namespace rdmabench::figure_names {

/// The prefix of each group's figures in a flat record (CSV, sweep).
inline constexpr const char* kLatencyPrefix = "lat_";
inline constexpr const char* kBandwidthPrefix = "bw_";
inline constexpr const char* kLoadPrefix = "load_";

/// `latency.samples`: how many samples the figures below rest on.
inline constexpr const char* kLatencySamples = "samples";

struct LatencyFigure {
  const char* name;
  double LatencySummary::*member;
};

/// The latency figures, in microseconds, in the order the CSV writes them.
inline constexpr std::array<LatencyFigure, 9> kLatencyFigures{{
    {"min_us", &LatencySummary::min},
    {"max_us", &LatencySummary::max},
    {"median_us", &LatencySummary::median},
    {"mean_us", &LatencySummary::mean},
    {"stdev_us", &LatencySummary::stdev},
    {"p90_us", &LatencySummary::p90},
    {"p99_us", &LatencySummary::p99},
    {"p99_9_us", &LatencySummary::p99_9},
    {"p99_99_us", &LatencySummary::p99_99},
}};

/// Bandwidth figures (BandwidthFigures and the sweep's pair figures).
inline constexpr const char* kBandwidthSeconds = "seconds";
inline constexpr const char* kPeakMBps = "peak_MBps";
inline constexpr const char* kPeakGbps = "peak_Gbps";
inline constexpr const char* kAverageMBps = "average_MBps";
inline constexpr const char* kAverageGbps = "average_Gbps";
inline constexpr const char* kMessageRateMpps = "message_rate_Mpps";

/// A figure's name in a flat record: "lat_" + "p99_9_us".
inline std::string flat(const char* prefix, const char* name) { return std::string(prefix) + name; }

/// MB/s (10^6 bytes/s) as Gb/s (10^9 bits/s).
inline double gbps_from_mbps(double mb_per_s) { return mb_per_s * 8 / 1000; }

}  // namespace rdmabench::figure_names
