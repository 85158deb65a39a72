#pragma once
/// @file
/// x86-64's tick counter, the TSC. Include rdmabench/system/cycle_counter.hpp,
/// which picks this file by architecture.

#include <cpuid.h>
#include <x86intrin.h>

#include <cstdint>
#include <optional>

namespace rdmabench {

/// The TSC (every architecture's counter goes by this name in the loops).
struct TscClock {
  static std::uint64_t now() noexcept { return __rdtsc(); }
  /// A read that no neighbouring instruction passes, for comparing CPUs.
  static std::uint64_t fenced_now() noexcept {
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
};

/// The counter's name in the report header and its warnings.
inline constexpr const char* kCounterName = "TSC";
/// The kernel's clocksource name when it keeps time with this counter.
inline constexpr const char* kCounterClocksource = "tsc";

/// The rate the hardware states for the counter: none on x86 that can be
/// relied on (CPUID leaf 0x15 is often absent or zero), so it is calibrated.
inline std::optional<double> counter_stated_ticks_per_us() { return std::nullopt; }

/// CPUID 0x80000007 EDX bit 8, "Invariant TSC": a constant rate in all P-
/// and C-states.
inline bool counter_invariant() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) || eax < 0x80000007) return false;
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return (edx >> 8) & 1;
}

}  // namespace rdmabench
