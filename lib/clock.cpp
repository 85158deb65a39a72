#include "rdmabench/clock.hpp"

#include <cpuid.h>
#include <fmt/format.h>

#include <fstream>
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

/// The kernel's own choice ("tsc", "hpet", ...): it marks the TSC unstable
/// when it is not fit to keep time.
std::string kernel_clocksource() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  in >> name;
  return name.empty() ? "unknown" : name;
}

}  // namespace

ClockInfo choose_clock(ClockChoice choice) {
  ClockInfo info;
  const bool invariant = tsc_is_invariant();
  const bool kernel_uses_tsc = kernel_clocksource() == "tsc";
  const bool use_tsc = choice == ClockChoice::tsc ||
                       (choice == ClockChoice::automatic && (invariant || kernel_uses_tsc));
  if (use_tsc) {
    info.kind = ClockKind::tsc;
    info.ticks_per_us = calibrate_tsc();
    const char* why = invariant         ? "invariant"
                      : kernel_uses_tsc ? "the kernel's clocksource"
                                        : "forced by --clock tsc, NOT known to be invariant";
    info.description = fmt::format("TSC, {}, {:.3f} GHz (calibrated against CLOCK_MONOTONIC_RAW)",
                                   why, info.ticks_per_us / 1000.0);
  } else {
    info.kind = ClockKind::monotonic;
    info.ticks_per_us = 1000.0;
    info.description = fmt::format(
        "clock_gettime(CLOCK_MONOTONIC_RAW) ({}; kernel clocksource {})",
        choice == ClockChoice::monotonic ? "chosen with --clock monotonic"
                                         : "the TSC is not known to be invariant",
        kernel_clocksource());
  }
  return info;
}

}  // namespace rdmabench
