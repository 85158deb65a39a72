#pragma once
// Gathering what the clock decision looks at: whether the counter is
// invariant, the kernel's clocksource, the cost of clock_gettime, and the
// counter across CPUs.

#include <vector>

#include "rdmabench/system/clock.hpp"
#include "rdmabench/system/cpu_affinity.hpp"

namespace rdmabench::detail {

/// Everything but tsc_offset_spread_us, which costs milliseconds per CPU.
ClockEvidence gather_clock_evidence();

/// Fills evidence.tsc_offset_spread_us, its resolution and evidence.cpus:
/// compares the TSC of each CPU this thread may run on with the one it is
/// on, by ping-pong between two pinned threads (this one's affinity is
/// restored after, and it never leaves its CPU). Leaves the spread unknown
/// when a CPU cannot be reached in time.
void cross_check_tsc(ClockEvidence& evidence, double ticks_per_us);

/// The order the cross-check visits `cpus` in: `here` (the checking
/// thread's CPU) first as the reference, the rest in their order. `here`
/// outside the list (or -1, unknown) leaves it as it is. Not a CpuList,
/// which is ascending: the reference may lead a higher number.
std::vector<int> reference_first(const CpuList& cpus, int here);

}  // namespace rdmabench::detail
