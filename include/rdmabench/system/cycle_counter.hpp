#pragma once
/// @file
/// The CPU's own tick counter, read in a few instructions without the
/// kernel: the TSC on x86-64, the generic timer's CNTVCT_EL0 on aarch64.
/// Each architecture has its own file with the same names (TscClock,
/// kCounterName, kCounterClocksource, counter_stated_ticks_per_us,
/// counter_invariant); this is the one place that picks between them.

#if defined(__x86_64__)
#include "rdmabench/system/cycle_counter_x86_64.hpp"
#elif defined(__aarch64__)
#include "rdmabench/system/cycle_counter_aarch64.hpp"
#else
#error "rdmabench has a cycle counter for x86-64 and aarch64 only: add cycle_counter_<arch>.hpp"
#endif
