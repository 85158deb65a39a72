#pragma once
// What one rank prepares before the sweep: its endpoint and context, and
// each --test's settings, parsed by that test's own option parser on this
// rank (its device, its GID). A rank that cannot take part says why, and
// rank 0 reports every such rank before anything runs.

#include <map>
#include <string>

#include "cli/options.hpp"
#include "rdmabench/sweep/record.hpp"
#include "sweep/sweep_options.hpp"

namespace rdmabench::sweep_cli {

struct RankSetup {
  sweep::EndpointContext me;
  std::map<std::string, cli::CommandLine> tests;  ///< by test name
  std::string error;  ///< why this rank cannot take part; empty when it can
};

/// Never throws: a failure is kept in `error`, naming the rank.
RankSetup prepare_rank(int rank, int local_rank, const std::string& host, const SweepOptions& options);

/// The context as one JSON text (how ranks tell each other), and back.
std::string encode_setup(const RankSetup& setup);
/// Throws rdmabench::Error for text that is not a rank's setup.
RankSetup decode_setup(const std::string& text);

}  // namespace rdmabench::sweep_cli
