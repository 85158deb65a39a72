#pragma once
// The sweep's two roles. Rank 0 conducts: it plans, sends each round's
// order, gathers the records as rounds finish (appending them to
// results.jsonl at once), re-tests the failing pairs and writes the report.
// Every other rank plays: it waits for orders and runs its pairs. Each side
// hears from the other at least once a second, so a rank that stops
// (killed, stopped, cut off) ends the sweep within --timeout + a few seconds,
// with the report of what finished written.

#include <functional>

#include "sweep/round_runner.hpp"

namespace rdmabench::sweep_cli {

/// Rank 0. Returns the exit status: 0 all passed, 1 a pair or suspect failed.
/// Ends the whole job (MPI_Abort, status 3) when a rank goes silent.
/// meet_at_the_end is the job's end barrier: called once the report is
/// written and before its heatmaps are drawn, which take seconds each and
/// would otherwise keep the other ranks waiting past their bound.
int conduct(const SweepRank& rank, Mailbox& mail, const std::function<void()>& meet_at_the_end);

/// Every other rank. Returns 0 when rank 0 says the sweep is over.
int play(const SweepRank& rank, Mailbox& mail);

/// Rank 0 writes the partial report and exits when this is set (mpirun's
/// SIGTERM when another rank died).
void install_termination_handler();

}  // namespace rdmabench::sweep_cli
