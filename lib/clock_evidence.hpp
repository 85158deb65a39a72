#pragma once
// Gathering what the clock decision looks at: CPUID, the kernel's
// clocksource, the cost of clock_gettime, and the TSC across CPUs.

#include "rdmabench/clock.hpp"

namespace rdmabench::detail {

/// Everything but tsc_offset_spread_us, which costs milliseconds per CPU.
ClockEvidence gather_clock_evidence();

/// Fills evidence.tsc_offset_spread_us, its resolution and evidence.cpus:
/// compares the TSC of each CPU this thread may run on with the first one's,
/// by ping-pong between two pinned threads (this one's affinity is restored
/// after). Leaves the spread unknown when a CPU cannot be reached in time.
void cross_check_tsc(ClockEvidence& evidence, double ticks_per_us);

}  // namespace rdmabench::detail
