// The clock decision (pure, unit-tested) and the counter's calibration.
#include "rdmabench/system/clock.hpp"

#include <fmt/format.h>

#include <cmath>
#include <thread>

#include "system/clock_evidence.hpp"

namespace rdmabench {

namespace {

struct Calibration {
  double ticks_per_us;
  std::uint64_t end_tsc, end_ns;
};

/// TSC ticks per microsecond, measured over 50 ms against CLOCK_MONOTONIC_RAW.
Calibration calibrate_tsc() {
  const auto t0 = MonotonicClock::now();
  const auto c0 = TscClock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t1 = MonotonicClock::now();
  const auto c1 = TscClock::now();
  return {static_cast<double>(c1 - c0) / (static_cast<double>(t1 - t0) / 1000.0), c1, t1};
}

constexpr std::uint64_t kMinDriftCheckNs = 500'000'000;

ClockInfo counter_clock(const Calibration& c, double ticks_per_us) {
  ClockInfo info;
  info.kind = ClockKind::tsc;
  info.ticks_per_us = ticks_per_us;
  info.calibrated_tsc = c.end_tsc;
  info.calibrated_ns = c.end_ns;
  return info;
}

/// A counter whose rate the hardware states (CNTFRQ_EL0, which firmware
/// sets): that rate when the calibration confirms it, else the calibrated
/// one, since a wrong stated rate would scale every time reported.
ClockInfo stated_rate_clock(const Calibration& c, double stated, const std::string& reason) {
  const double off = c.ticks_per_us / stated - 1.0;
  if (std::abs(off) <= kMaxTscRateDrift) {
    ClockInfo info = counter_clock(c, stated);
    info.description = fmt::format(
        "{} at {:.3f} MHz as stated by the hardware, within {:.2f}% of its calibration against "
        "CLOCK_MONOTONIC_RAW ({})",
        kCounterName, stated, std::abs(off) * 100.0, reason);
    return info;
  }
  ClockInfo info = counter_clock(c, c.ticks_per_us);
  info.description = fmt::format(
      "{} at {:.3f} MHz, calibrated against CLOCK_MONOTONIC_RAW; the hardware states {:.3f} MHz, "
      "which the counter does not keep ({})",
      kCounterName, c.ticks_per_us, stated, reason);
  return info;
}

bool slow_clock_gettime(const ClockEvidence& e) { return e.clock_gettime_ns > kSlowClockGettimeNs; }

}  // namespace

bool needs_tsc_cross_check(ClockChoice choice, const ClockEvidence& e) {
  return choice == ClockChoice::automatic && !e.tsc_invariant &&
         e.kernel_clocksource != kCounterClocksource && slow_clock_gettime(e) && !e.loops_sleep;
}

ClockDecision decide_clock(ClockChoice choice, const ClockEvidence& e) {
  const std::string source = e.kernel_clocksource.empty() ? "unknown" : e.kernel_clocksource;
  const std::string cost = fmt::format("clock_gettime costs {:.0f} ns here (kernel clocksource {})",
                                       e.clock_gettime_ns, source);
  switch (choice) {
    case ClockChoice::tsc:
      return {ClockKind::tsc, e.tsc_invariant || source == kCounterClocksource
                                  ? "forced by --clock tsc"
                                  : "forced by --clock tsc, NOT known to be invariant"};
    case ClockChoice::monotonic:
      return {ClockKind::monotonic, "chosen with --clock monotonic; " + cost};
    case ClockChoice::automatic: break;
  }
  if (e.tsc_invariant) return {ClockKind::tsc, "invariant"};
  if (source == kCounterClocksource) return {ClockKind::tsc, "the kernel's clocksource"};
  if (!slow_clock_gettime(e))
    return {ClockKind::monotonic, "the TSC is not known to be invariant, and " + cost};
  // Measured in the lab (qemu TCG, -e): such a TSC counted 0.39 s of a 1 s
  // run whose thread slept between completions.
  if (e.loops_sleep)
    return {ClockKind::monotonic,
            "the TSC is not known to be invariant, and the loops sleep (-e), on CPUs that idle, "
            "where such a TSC may stop or skew; " + cost};
  if (!e.tsc_offset_spread_us)
    return {ClockKind::monotonic,
            "the TSC is not known to be invariant and was not cross-checked; " + cost};
  // Each offset is known only to within its bounds (half their width is
  // the resolution), so only a spread beyond that resolution counts against
  // the TSC (see docs/methodology.md#clocks).
  const double spread = *e.tsc_offset_spread_us;
  const double resolution = e.tsc_offset_resolution_us;
  if (spread > kMaxTscOffsetSpreadUs + resolution)
    return {ClockKind::monotonic,
            fmt::format("the TSC is not known to be invariant and differs by {:.2f} us across "
                        "CPUs {} (measured to {:.2f} us); {}",
                        spread, e.cpus, resolution, cost)};
  return {ClockKind::tsc,
          fmt::format("not advertised invariant, but {}, and the TSC agrees across CPUs {} within "
                      "{:.2f} us (measured to {:.2f} us); its rate is checked again at the end",
                      cost, e.cpus, spread, resolution)};
}

ClockInfo choose_clock(ClockChoice choice, bool loops_sleep) {
  ClockEvidence evidence = detail::gather_clock_evidence();
  evidence.loops_sleep = loops_sleep;
  std::optional<Calibration> calibration;
  if (needs_tsc_cross_check(choice, evidence)) {
    calibration = calibrate_tsc();
    detail::cross_check_tsc(evidence, calibration->ticks_per_us);
  }
  const ClockDecision decision = decide_clock(choice, evidence);
  if (decision.kind != ClockKind::tsc) {
    ClockInfo info;
    info.ticks_per_us = 1000.0;
    info.description = fmt::format("clock_gettime(CLOCK_MONOTONIC_RAW) ({})", decision.reason);
    return info;
  }
  if (!calibration) calibration = calibrate_tsc();
  if (const auto stated = counter_stated_ticks_per_us())
    return stated_rate_clock(*calibration, *stated, decision.reason);
  ClockInfo info = counter_clock(*calibration, calibration->ticks_per_us);
  info.description = fmt::format("TSC at {:.3f} GHz, calibrated against CLOCK_MONOTONIC_RAW ({})",
                                 info.ticks_per_us / 1000.0, decision.reason);
  return info;
}

double tsc_rate_drift(double calibrated_ticks_per_us, std::uint64_t ticks, std::uint64_t ns) {
  if (ns == 0 || calibrated_ticks_per_us <= 0) return 0.0;
  const double measured = static_cast<double>(ticks) / (static_cast<double>(ns) / 1000.0);
  return measured / calibrated_ticks_per_us - 1.0;
}

std::optional<std::string> tsc_drift_warning(const ClockInfo& clock) {
  if (clock.kind != ClockKind::tsc || clock.calibrated_ns == 0) return std::nullopt;
  const auto ns = MonotonicClock::now();
  const auto ticks = TscClock::now();
  // Over a short run the two reads' own jitter would pass for drift; the
  // calibration just before covers such a run anyway.
  if (ns - clock.calibrated_ns < kMinDriftCheckNs) return std::nullopt;
  const double drift =
      tsc_rate_drift(clock.ticks_per_us, ticks - clock.calibrated_tsc, ns - clock.calibrated_ns);
  if (std::abs(drift) <= kMaxTscRateDrift) return std::nullopt;
  return fmt::format(
      "warning: the {} ran {:+.2f}% off its calibrated {:.3f} GHz over this run, so every time "
      "above is off by about that much; rerun with --clock monotonic",
      kCounterName, drift * 100.0, clock.ticks_per_us / 1000.0);
}

}  // namespace rdmabench
