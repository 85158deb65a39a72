#pragma once
// rdma_sweep's command line: what every rank of the sweep runs. MPI-free, so
// the unit tests reach it.

#include <cstdint>
#include <string>
#include <vector>

#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/sweep/schedule.hpp"

namespace rdmabench::sweep_cli {

struct SweepOptions {
  std::string device;    ///< -d: this rank's RDMA device (required)
  std::string address;   ///< --address: where the other ranks reach this one; empty: the device's netdev IPv4
  sweep::Pattern pattern = sweep::Pattern::pairwise;
  TestSpec spec;         ///< write_bw with -s and -n applied
  double timeout_s = 10;  ///< any wait for a peer; a pair that waits longer fails
  std::uint16_t base_port = 18515;  ///< rank r's pair server listens on base_port + 2r
  std::string out_dir;   ///< --out: results.jsonl and report.md (required)
  bool skip_same_host = false;
  bool show_help = false;
  std::string help_text;
};

/// Parses the arguments after the program name; throws cli::UsageError
/// naming the option that is wrong and what would be right.
SweepOptions parse_sweep_options(const std::vector<std::string>& args);

/// The TCP port of `rank`'s pair server (rdma_cm would take the next one);
/// throws cli::UsageError when `ranks` servers do not fit below 65536.
std::uint16_t pair_server_port(std::uint16_t base_port, int rank, int ranks);

}  // namespace rdmabench::sweep_cli
