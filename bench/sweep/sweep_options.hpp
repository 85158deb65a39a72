#pragma once
// rdma_sweep's command line: what every rank of the sweep runs. The sweep's
// own options are parsed here; every other option (-s, -n, -D, -q, --mem,
// -R, ...) is the pair benchmarks' own and is handed to each --test's
// parser, so it means and checks exactly what it does for rdma_write_bw.
// MPI-free, so the unit tests reach it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/compare/thresholds.hpp"
#include "rdmabench/sweep/counter_limits.hpp"
#include "rdmabench/sweep/schedule.hpp"

namespace rdmabench::sweep_cli {

/// Where each rank's device comes from.
struct DeviceChoice {
  std::vector<std::string> devices;  ///< -d (one) or --devices (one per local rank, rail = position)
  bool per_local_rank = false;       ///< --device-per-local-rank: the host's Nth device, by name
  std::vector<std::string> addresses;  ///< --addresses: local rank k uses the k-th (its GID and rdma_cm address)
};

/// Pass/fail limits; empty ones are not checked.
struct SweepLimits {
  std::optional<double> min_gbps;
  std::optional<double> min_line_rate;  ///< share of the port's rate
  std::optional<double> max_p99_us;
  double min_share_of_median = 0.5;     ///< bandwidth: below this share of the median pair fails
  double max_p99_multiple = 5;          ///< latency: p99 above this multiple of the best pair fails
};

struct SweepOptions {
  DeviceChoice device;
  std::vector<std::string> tests{"write_bw"};  ///< --test, in the order they run
  sweep::ScheduleOptions schedule;
  SweepLimits limits;
  /// The watched counters and their limits: the defaults with each
  /// --max-counter NAME=N applied (docs/sweep.md, "Silent degraders").
  std::vector<sweep::CounterLimit> counter_limits = sweep::default_counter_limits();
  double timeout_s = 10;           ///< any wait for a peer; a pair that waits longer fails
  std::uint16_t base_port = 18515; ///< rdma_cm: rank r's n-th served pair listens on base + 2(r + n x ranks) + 1
  std::string out_dir;             ///< --out or --resume
  bool resume = false;             ///< --resume: skip pairs already in out_dir/results.jsonl
  bool retest = true;              ///< second pass over the failing pairs' ends
  bool heatmaps = true;            ///< draw PNG heatmaps (tools/sweep-heatmaps) at the end
  /// --baseline: an earlier sweep's folder whose pairs this one's are
  /// compared with in the report; empty: none.
  std::string baseline_dir;
  compare::Thresholds baseline_thresholds;  ///< --baseline-threshold over rdma_compare's defaults
  /// The options for the pair benchmarks, as given (without -d/--timeout,
  /// which the sweep adds per rank).
  std::vector<std::string> pair_args;
  bool show_help = false;
  bool show_version = false;
  std::string help_text;
};

/// Parses the arguments after the program name; throws cli::UsageError
/// naming the option that is wrong and what would be right.
SweepOptions parse_sweep_options(const std::vector<std::string>& args);

/// The options one --test's pair runs with on a rank using `device`.
std::vector<std::string> pair_arguments(const SweepOptions& options, const std::string& device);

/// The device a rank uses, by its position on its host; throws
/// cli::UsageError when the list has no entry for it. `host_devices` are the
/// host's RDMA devices by name, for --device-per-local-rank.
std::string device_for_local_rank(const DeviceChoice& choice, int local_rank,
                                  const std::vector<std::string>& host_devices);
/// Its rail: the device's position in --devices (or among the host's
/// devices); 0 with a single -d.
int rail_for_local_rank(const DeviceChoice& choice, int local_rank);

}  // namespace rdmabench::sweep_cli
