#pragma once
// One directed pair of a sweep, run by the suite's own session and engine
// over the TCP control path. MPI-free: the ranks' coordination is the
// caller's, and never happens inside these calls' timed loops.

#include <memory>
#include <optional>
#include <string>

#include "rdmabench/control/session.hpp"
#include "rdmabench/system/clock.hpp"

namespace rdmabench::sweep_cli {

/// What a pair gave: a figure (client side) or why none came.
struct PairOutcome {
  std::optional<double> gbits_per_s;  ///< bandwidth average, 10^9 bit/s
  std::string error;                  ///< empty when the pair ran
};

/// The server half, listening from construction (so the client may connect
/// as soon as every server of the round is up) until run() has served one
/// client. A failure to listen is kept and reported by run().
class PairServer {
 public:
  PairServer(const SideConfig& config, const TestSpec& spec, Notice notice);
  ~PairServer();
  /// Serves one client through the whole benchmark.
  PairOutcome run(const ClockInfo& clock);

 private:
  std::unique_ptr<Server> server_;
  std::string listen_error_;
};

/// The client half: connects to `config.server` and measures.
PairOutcome run_pair_client(const SideConfig& config, const TestSpec& spec, const Notice& notice,
                            const ClockInfo& clock);

}  // namespace rdmabench::sweep_cli
