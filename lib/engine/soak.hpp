#pragma once
// A soak run (--run-infinitely): the one size runs in periods of -D
// seconds, each reported as it ends, until SIGINT or SIGTERM on either
// side. After each period the sides tell each other whether they go on;
// at the end each writes a summary of the whole run.

#include <string>
#include <vector>

#include "rdmabench/control/session.hpp"
#include "rdmabench/report/result.hpp"

namespace rdmabench::detail {

struct SoakDecision {
  bool go_on = true;
  std::string stopped_by;  ///< when not: "SIGINT on this side", "a stop signal on the peer"
};

/// Both sides say whether they go on (a Barrier of one of two numbers
/// outside the run's sequence), and the run ends when either says stop.
/// Anything else from the peer is a protocol error; a silent peer ends the
/// run after --timeout, as any wait does.
SoakDecision agree_to_go_on(Session& s, bool this_side_goes_on);

/// The periods' figures summed into the soak's summary.
class SoakTotals {
 public:
  void add(const SizeResult& period);
  SoakSummary summary(std::string stopped_by) const;

 private:
  SoakSummary sum_;
  std::vector<RateEdge> edges_{{0, 0}};  ///< every interval of every period, end to end
  double interval_ms_ = 0;
  bool cut_short_ = false;
};

}  // namespace rdmabench::detail
