#pragma once
/// @file
/// aarch64's tick counter: the generic timer's virtual count, CNTVCT_EL0,
/// which Linux lets user space read. Include rdmabench/system/cycle_counter.hpp,
/// which picks this file by architecture.

#include <cstdint>
#include <optional>

namespace rdmabench {

/// CNTVCT_EL0, under the name the loops use for every architecture's counter.
struct TscClock {
  /// The isb keeps the read from being taken ahead of the instructions
  /// before it, as the kernel's own readers (arch_timer_read_cntvct_el0) do.
  static std::uint64_t now() noexcept {
    std::uint64_t ticks;
    asm volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(ticks) : : "memory");
    return ticks;
  }
  /// A read that no neighbouring instruction passes, for comparing CPUs.
  static std::uint64_t fenced_now() noexcept {
    const std::uint64_t ticks = now();
    asm volatile("isb" : : : "memory");
    return ticks;
  }
};

/// The counter's name in the report header and its warnings.
inline constexpr const char* kCounterName = "CNTVCT_EL0";
/// The kernel's clocksource name when it keeps time with this counter.
inline constexpr const char* kCounterClocksource = "arch_sys_counter";

/// CNTFRQ_EL0: the counter's rate in Hz, as firmware set it at boot.
inline std::uint64_t counter_frequency_hz() noexcept {
  std::uint64_t hz;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(hz));
  return hz;
}

/// The rate CNTFRQ_EL0 states, in ticks per microsecond (none when zero:
/// firmware that never set it). The clock still checks it by calibration.
inline std::optional<double> counter_stated_ticks_per_us() {
  const std::uint64_t hz = counter_frequency_hz();
  if (hz == 0) return std::nullopt;
  return static_cast<double>(hz) / 1e6;
}

/// There is no flag to read: the architecture makes the system counter one
/// clock for all cores, in an always-on power domain, at the fixed rate
/// CNTFRQ_EL0 states (Arm ARM, "The Generic Timer"). Whether firmware
/// stated that rate right is what the calibration checks.
inline bool counter_invariant() { return true; }

}  // namespace rdmabench
