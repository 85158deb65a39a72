#pragma once
/// @file
/// The timestamp source of the timed loops: the TSC where it is invariant
/// (calibrated against CLOCK_MONOTONIC_RAW), otherwise clock_gettime. Loops
/// are templates over the clock type, chosen once at setup.

#include <time.h>
#include <x86intrin.h>

#include <cstdint>
#include <string>

namespace rdmabench {

struct TscClock {
  static std::uint64_t now() noexcept { return __rdtsc(); }
};

struct MonotonicClock {
  static std::uint64_t now() noexcept {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
  }
};

enum class ClockKind { tsc, monotonic };

/// The clock chosen for this run and how to turn its ticks into time.
struct ClockInfo {
  ClockKind kind = ClockKind::monotonic;
  double ticks_per_us = 1000.0;
  std::string description;  ///< for the report header, with the reason
};

enum class ClockChoice { automatic, tsc, monotonic };

/// automatic: the TSC when CPUID reports it invariant or the kernel itself
/// keeps time with it, else clock_gettime. tsc / monotonic force one (the
/// description says when a forced TSC is not known to be invariant).
ClockInfo choose_clock(ClockChoice choice = ClockChoice::automatic);

/// Runs `f.template operator()<Clock>()` with the chosen clock type.
template <typename F>
decltype(auto) with_clock(const ClockInfo& clock, F&& f) {
  if (clock.kind == ClockKind::tsc) return f.template operator()<TscClock>();
  return f.template operator()<MonotonicClock>();
}

}  // namespace rdmabench
