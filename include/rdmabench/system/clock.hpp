#pragma once
/// @file
/// The timestamp source of the timed loops: the CPU's tick counter where it
/// can be trusted (the TSC on x86-64, CNTVCT_EL0 on aarch64; "TSC" below
/// stands for either), otherwise clock_gettime. Loops are templates over the
/// clock type, chosen once at setup.

#include <time.h>

#include <cstdint>
#include <optional>
#include <string>

#include "rdmabench/system/cycle_counter.hpp"

namespace rdmabench {

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
  /// Where the TSC calibration ended (TSC ticks, CLOCK_MONOTONIC_RAW ns), so
  /// that the rate can be checked again over the whole run.
  std::uint64_t calibrated_tsc = 0;
  std::uint64_t calibrated_ns = 0;
};

enum class ClockChoice { automatic, tsc, monotonic };

/// What the automatic choice looks at.
struct ClockEvidence {
  /// One rate in all power states: CPUID 0x80000007 EDX bit 8 on x86-64,
  /// the architecture's promise on aarch64 (counter_invariant()).
  bool tsc_invariant = false;
  std::string kernel_clocksource;  ///< "tsc", "hpet", "kvm-clock", "arch_sys_counter", ...
  double clock_gettime_ns = 0;     ///< cost of one CLOCK_MONOTONIC_RAW read
  /// Spread of the TSC's offsets over the CPUs this thread may run on; only
  /// measured when the decision needs it.
  std::optional<double> tsc_offset_spread_us;
  /// How finely that spread could be measured: half the widest bracket
  /// (two reads on one CPU around a read on another) any CPU's offset had.
  double tsc_offset_resolution_us = 0;
  std::string cpus;  ///< those CPUs, as a list
  /// The timed loops sleep (-e): the thread may move between CPUs, and its
  /// CPU idles, where a TSC not known to be invariant may stop or skew.
  /// The cross-check, taken on busy CPUs, cannot vouch for that.
  bool loops_sleep = false;
};

struct ClockDecision {
  ClockKind kind = ClockKind::monotonic;
  std::string reason;
};

/// A clock_gettime dearer than this is a system call (no vDSO clock), which
/// costs more than the TSC read it would replace by an order of magnitude.
inline constexpr double kSlowClockGettimeNs = 200.0;
/// TSCs this far apart across CPUs, beyond the cross-check's resolution,
/// would show in a sample that migrates.
inline constexpr double kMaxTscOffsetSpreadUs = 1.0;
/// A TSC whose rate over the run strays further than this from its
/// calibration has changed speed: the figures are warned about.
inline constexpr double kMaxTscRateDrift = 0.005;

/// automatic: the TSC when it is invariant or the kernel keeps time with it
/// (clocksource kCounterClocksource). Otherwise the TSC only when clock_gettime is a system call
/// here, the TSC agrees across this thread's CPUs and the loops do not sleep
/// (perftest uses the TSC unconditionally; we check). tsc / monotonic force one.
ClockDecision decide_clock(ClockChoice choice, const ClockEvidence& evidence);

/// Whether decide_clock needs evidence.tsc_offset_spread_us (costly to get).
bool needs_tsc_cross_check(ClockChoice choice, const ClockEvidence& evidence);

/// Gathers the evidence, decides, and calibrates the TSC if chosen. A rate
/// the hardware states (aarch64's CNTFRQ_EL0) is used when the calibration
/// agrees with it within kMaxTscRateDrift; otherwise the calibrated one, and
/// the description says so.
/// `loops_sleep`: the run's loops sleep on completion events (-e).
ClockInfo choose_clock(ClockChoice choice = ClockChoice::automatic, bool loops_sleep = false);

/// The TSC's rate over `ticks` and `ns` against the calibrated one: a signed
/// fraction (0.01 = 1% fast).
double tsc_rate_drift(double calibrated_ticks_per_us, std::uint64_t ticks, std::uint64_t ns);

/// For a TSC run, measured at the end: a warning when the TSC's rate since
/// calibration strays more than kMaxTscRateDrift, else nothing.
std::optional<std::string> tsc_drift_warning(const ClockInfo& clock);

/// Runs `f.template operator()<Clock>()` with the chosen clock type.
template <typename F>
decltype(auto) with_clock(const ClockInfo& clock, F&& f) {
  if (clock.kind == ClockKind::tsc) return f.template operator()<TscClock>();
  return f.template operator()<MonotonicClock>();
}

}  // namespace rdmabench
