#pragma once
// One side of one directed pair of a sweep, run by the suite's own session
// and engine over a control path the caller opens (MPI's, in rdma_sweep).
// MPI-free: these calls know nothing of ranks beyond the contexts given.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "rdmabench/control/bootstrap.hpp"
#include "rdmabench/sweep/record.hpp"
#include "rdmabench/system/clock.hpp"

namespace rdmabench::sweep_cli {

/// Everything one side needs for one pair.
struct PairJob {
  std::string test;                 ///< "write_bw"
  const cli::CommandLine* setup = nullptr;  ///< this rank's spec and side settings for the test
  sweep::EndpointContext client;
  sweep::EndpointContext server;
  std::uint16_t cm_port = 0;        ///< the server's control port (rdma_cm listens on it + 1)
  std::function<std::unique_ptr<Bootstrap>()> open_peer;  ///< the control path to the other side
  Notice notice;
};

/// The client side: connects, measures, and returns the record (its error
/// set when the pair gave no figure). Never throws for the pair's failures.
sweep::SweepRecord run_client_side(const PairJob& job, const ClockInfo& clock);

/// What the server side of a pair ends with: why it failed (empty when it
/// did not), and its end's counter deltas, for rank 0 to join to the
/// client's record.
struct ServerOutcome {
  std::string error;
  std::optional<CounterDeltas> counters;
};

/// The server side: serves the one client of the job. Never throws for the
/// pair's failures.
ServerOutcome run_server_side(const PairJob& job, const ClockInfo& clock);

}  // namespace rdmabench::sweep_cli
