#include "rdmabench/clock.hpp"

#include <cpuid.h>
#include <fmt/format.h>

#include <thread>

namespace rdmabench {

namespace {

bool tsc_is_invariant() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) || eax < 0x80000007) return false;
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return (edx >> 8) & 1;  // "Invariant TSC": constant rate in all P/C states
}

/// TSC ticks per microsecond, measured over 50 ms against CLOCK_MONOTONIC_RAW.
double calibrate_tsc() {
  const auto t0 = MonotonicClock::now();
  const auto c0 = TscClock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t1 = MonotonicClock::now();
  const auto c1 = TscClock::now();
  return static_cast<double>(c1 - c0) / (static_cast<double>(t1 - t0) / 1000.0);
}

}  // namespace

ClockInfo choose_clock() {
  ClockInfo info;
  if (tsc_is_invariant()) {
    info.kind = ClockKind::tsc;
    info.ticks_per_us = calibrate_tsc();
    info.description = fmt::format("TSC, invariant, {:.3f} GHz (calibrated against "
                                   "CLOCK_MONOTONIC_RAW)", info.ticks_per_us / 1000.0);
  } else {
    info.kind = ClockKind::monotonic;
    info.ticks_per_us = 1000.0;
    info.description = "clock_gettime(CLOCK_MONOTONIC_RAW) (the CPU does not report an invariant TSC)";
  }
  return info;
}

}  // namespace rdmabench
