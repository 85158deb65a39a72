#pragma once
// A rank's part of one round: each pair it is in, client or server, runs in
// a thread of its own (an incast root serves several clients at once),
// while the calling thread keeps up the sweep's coordination.

#include <functional>
#include <vector>

#include "rdmabench/system/clock.hpp"
#include "sweep/mpi_world.hpp"
#include "sweep/rank_setup.hpp"
#include "sweep/round_order.hpp"
#include "sweep/round_report.hpp"
#include "sweep/sweep_options.hpp"

namespace rdmabench::sweep_cli {

/// What every round of a rank runs with.
struct SweepRank {
  const World& world;
  const SweepOptions& options;
  const RankSetup& setup;
  const std::vector<sweep::EndpointContext>& everyone;  ///< by rank
  ClockInfo clock;
};

/// Runs this rank's pairs of `order`; `tend` is called about every 50 ms
/// until they are done.
MyPairs run_my_pairs(const SweepRank& rank, const RoundOrder& order, const std::function<void()>& tend);

}  // namespace rdmabench::sweep_cli
