#pragma once
/// @file
/// Runs the negotiated test over a connected Session, size by size.

#include "rdmabench/system/clock.hpp"
#include "rdmabench/report/report.hpp"
#include "rdmabench/control/session.hpp"

namespace rdmabench {

/// The context block of this side's report.
RunContext describe_run(const Session& session, const ClockInfo& clock);

/// Every size of the spec: timed loops, statistics, one Reporter call each.
/// `context` (from describe_run, with the caller's presentation choices such
/// as report_gbits) is handed to the reporter first. On any failure the peer
/// is told why (Abort) before the error propagates.
void run_benchmark(Session& session, const ClockInfo& clock, const RunContext& context,
                   Reporter& reporter);

}  // namespace rdmabench
