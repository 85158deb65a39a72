// What rdma_compare calls each figure and which way it should go. The keys
// are the flat names every output shares (figure_names.hpp); the pair
// records give MB/s, the sweep's Gb/s, so both spellings are here.

#include "rdmabench/compare/figures.hpp"

#include <array>

namespace rdmabench::compare {

namespace {

struct KnownComparedFigure {
  std::string_view key, name, unit;
  Better better;
  std::string_view group;
};

// In report order: bandwidth and message rate, then latency from the
// fastest sample to the slowest, then CPU cost.
constexpr std::array<KnownComparedFigure, 18> kComparedFigures{{
    {"bw_average_MBps", "bandwidth", "MB/s", Better::higher, "bw"},
    {"bw_average_Gbps", "bandwidth", "Gb/s", Better::higher, "bw"},
    {"bw_both_average_MBps", "bandwidth, both directions", "MB/s", Better::higher, "bw"},
    {"bw_server_average_MBps", "bandwidth, server's direction", "MB/s", Better::higher, "bw"},
    {"bw_message_rate_Mpps", "message rate", "Mpps", Better::higher, "msg_rate"},
    {"bw_both_message_rate_Mpps", "message rate, both directions", "Mpps", Better::higher, "msg_rate"},
    {"bw_peak_MBps", "peak bandwidth", "MB/s", Better::higher, "peak"},
    {"bw_peak_Gbps", "peak bandwidth", "Gb/s", Better::higher, "peak"},
    {"lat_min_us", "minimum latency", "us", Better::lower, "min"},
    {"lat_median_us", "median latency", "us", Better::lower, "median"},
    {"lat_mean_us", "average latency", "us", Better::lower, "mean"},
    {"lat_p90_us", "p90 latency", "us", Better::lower, "p90"},
    {"lat_p99_us", "p99 latency", "us", Better::lower, "p99"},
    {"lat_p99_9_us", "p99.9 latency", "us", Better::lower, "p99_9"},
    {"lat_p99_99_us", "p99.99 latency", "us", Better::lower, "p99_99"},
    {"lat_max_us", "maximum latency", "us", Better::lower, "max"},
    {"cpu_client_s_per_GB", "client CPU cost", "CPU s/GB", Better::lower, "cpu"},
    {"cpu_server_s_per_GB", "server CPU cost", "CPU s/GB", Better::lower, "cpu"},
}};

constexpr std::string_view kCounterPrefix = "counter_";
// Soft RoCE retransmits about 170 times per million packets on a healthy,
// idle link (docs/sweep.md): a short run sees a few, and a few more or less
// is chance. Ten events is where a count starts to say something.
constexpr double kCounterFloor = 10;

}  // namespace

FigureInfo describe_figure(std::string_view key) {
  for (std::size_t i = 0; i < kComparedFigures.size(); ++i) {
    const auto& k = kComparedFigures[i];
    if (k.key == key)
      return {std::string(k.key), std::string(k.name), std::string(k.unit), k.better, std::string(k.group),
              static_cast<int>(i)};
  }
  const int last = static_cast<int>(kComparedFigures.size());
  // Error counters (retransmissions, sequence errors, discards): fewer is better.
  if (key.starts_with(kCounterPrefix))
    return {std::string(key), "counter " + std::string(key.substr(kCounterPrefix.size())), "count", Better::lower,
            "counters", last, kCounterFloor};
  return {std::string(key), std::string(key), "", Better::lower, std::string(key), last + 1};
}

std::string_view better_text(Better better) {
  return better == Better::higher ? "higher is better" : "lower is better";
}

}  // namespace rdmabench::compare
