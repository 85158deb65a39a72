#pragma once
// Gathering what the clock decision looks at: CPUID, the kernel's
// clocksource, the cost of clock_gettime, and the TSC across CPUs.

#include "rdmabench/clock.hpp"

namespace rdmabench::detail {

/// Everything but tsc_offset_spread_us, which costs milliseconds per CPU.
ClockEvidence gather_clock_evidence();

/// Fills evidence.tsc_offset_spread_us and evidence.cpus: pins this thread
/// to each CPU it may run on in turn (restoring its affinity after) and
/// compares the TSC there with CLOCK_MONOTONIC_RAW.
void cross_check_tsc(ClockEvidence& evidence, double ticks_per_us);

}  // namespace rdmabench::detail
