#pragma once
/// @file
/// The figures rdma_compare compares, by their flat names (the pair CSV's
/// and the sweep's, docs/json-output.md "One name for each figure"): what
/// each is called, its unit, which way is better, and the threshold group
/// (`--threshold bw=3%`) that holds it.

// fmt/format.h before the namespace below exists: fmt calls a compare() of
// its own unqualified, and a file that says `using namespace rdmabench`
// would otherwise meet this namespace there when a unity batch includes
// fmt/format.h for the first time after it.
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace rdmabench::compare {

enum class Better { higher, lower };

struct FigureInfo {
  std::string key;    ///< "bw_average_MBps", "lat_p99_us", "cpu_client_s_per_GB", "counter_rcvd_seq_err"
  std::string name;   ///< "bandwidth", "p99 latency", ...
  std::string unit;   ///< "MB/s", "us", "CPU s/GB", "count"
  Better better = Better::higher;
  std::string group;  ///< the --threshold group: "bw", "p99", "cpu", "counters", ...
  int order = 0;      ///< where reports list it among the others (lower first)
  /// Medians below this are taken as this when the change is computed: a
  /// counter's handful of events either way (0 against 3 retries) is no
  /// change, and 0 against anything is no infinite one. 0 for the others.
  double floor = 0;
};

/// Describes a figure key; a key it does not know is a lower-is-better
/// figure of its own group (its key), listed last.
FigureInfo describe_figure(std::string_view key);

/// "higher is better" / "lower is better".
std::string_view better_text(Better better);

}  // namespace rdmabench::compare
