// The clock decision from recorded evidence, and the TSC rate check.

#include "rdmabench/system/clock.hpp"

#include "catch2_compat.hpp"
#include <vector>

#include "system/clock_evidence.hpp"
#include "rdmabench/system/cpu_affinity.hpp"

using rdmabench::ClockChoice;
using rdmabench::ClockEvidence;
using rdmabench::ClockKind;
using rdmabench::decide_clock;
using rdmabench::needs_tsc_cross_check;
using Catch::Contains;

namespace {

/// A TCG guest: no invariant flag, the kernel keeps time on the HPET, and
/// clock_gettime is a 700 ns system call.
ClockEvidence emulated_guest() {
  ClockEvidence e;
  e.kernel_clocksource = "hpet";
  e.clock_gettime_ns = 700;
  return e;
}

}  // namespace

TEST_CASE("clock: an invariant TSC or the kernel's TSC clocksource is used without more checks", "[clock]") {
  ClockEvidence e = emulated_guest();
  e.tsc_invariant = true;
  CHECK_FALSE(needs_tsc_cross_check(ClockChoice::automatic, e));
  CHECK(decide_clock(ClockChoice::automatic, e).kind == ClockKind::tsc);
  e.tsc_invariant = false;
  e.kernel_clocksource = rdmabench::kCounterClocksource;  // "tsc" on x86-64
  CHECK_FALSE(needs_tsc_cross_check(ClockChoice::automatic, e));
  const auto d = decide_clock(ClockChoice::automatic, e);
  CHECK(d.kind == ClockKind::tsc);
  CHECK_THAT(d.reason, Contains("the kernel's clocksource"));
}

TEST_CASE("clock: loops that sleep (-e) keep the kernel's clock unless the TSC is invariant", "[clock][events]") {
  // Measured in the lab: the guest's TSC, cross-checked on busy CPUs, counted
  // 0.39 s of a 1 s run whose thread slept between completions.
  ClockEvidence e = emulated_guest();
  e.loops_sleep = true;
  e.tsc_offset_spread_us = 0.2;  // would pass for a busy run
  CHECK_FALSE(needs_tsc_cross_check(ClockChoice::automatic, e));
  const auto d = decide_clock(ClockChoice::automatic, e);
  CHECK(d.kind == ClockKind::monotonic);
  CHECK_THAT(d.reason, Contains("the loops sleep (-e)"));
  e.tsc_invariant = true;
  CHECK(decide_clock(ClockChoice::automatic, e).kind == ClockKind::tsc);
  e.tsc_invariant = false;
  CHECK(decide_clock(ClockChoice::tsc, e).kind == ClockKind::tsc);  // forced: as asked
}

TEST_CASE("clock: a cheap clock_gettime is kept when the TSC is not known invariant", "[clock]") {
  ClockEvidence e = emulated_guest();
  e.kernel_clocksource = "kvm-clock";
  e.clock_gettime_ns = 25;  // a vDSO read
  CHECK_FALSE(needs_tsc_cross_check(ClockChoice::automatic, e));
  const auto d = decide_clock(ClockChoice::automatic, e);
  CHECK(d.kind == ClockKind::monotonic);
  CHECK_THAT(d.reason, Contains("25 ns") && Contains("kvm-clock"));
}

TEST_CASE("clock: a system-call clock_gettime gives way to a TSC that agrees across CPUs", "[clock]") {
  ClockEvidence e = emulated_guest();
  CHECK(needs_tsc_cross_check(ClockChoice::automatic, e));
  SECTION("not cross-checked: the kernel's clock") {
    CHECK(decide_clock(ClockChoice::automatic, e).kind == ClockKind::monotonic);
  }
  SECTION("cross-checked: the TSC within 1 us beyond the check's resolution, saying why") {
    struct Case {
      double spread_us, resolution_us;
      const char* cpus;
      ClockKind kind;
      const char* says;
    };
    for (const Case& c : {
             Case{0.2, 0.0, "0-1", ClockKind::tsc, "CPUs 0-1 within 0.20 us"},
             Case{35.0, 0.0, "0-3", ClockKind::monotonic, "35.00 us across CPUs 0-3"},
             // Bounds 0.8 us wide leave room for 1.8 us: not to be held against it.
             Case{1.5, 0.8, "0-1", ClockKind::tsc, "within 1.50 us (measured to 0.80 us)"},
             Case{1.9, 0.8, "0-1", ClockKind::monotonic,
                  "differs by 1.90 us across CPUs 0-1 (measured to 0.80 us)"},
         }) {
      INFO("spread " << c.spread_us << " us, resolution " << c.resolution_us << " us");
      e.tsc_offset_spread_us = c.spread_us;
      e.tsc_offset_resolution_us = c.resolution_us;
      e.cpus = c.cpus;
      const auto d = decide_clock(ClockChoice::automatic, e);
      CHECK(d.kind == c.kind);
      CHECK_THAT(d.reason, Contains("700 ns") && Contains("hpet") && Contains(c.says));
    }
  }
}

TEST_CASE("clock: --clock tsc and --clock monotonic are obeyed whatever the evidence", "[clock]") {
  ClockEvidence e = emulated_guest();
  CHECK_FALSE(needs_tsc_cross_check(ClockChoice::tsc, e));
  CHECK_FALSE(needs_tsc_cross_check(ClockChoice::monotonic, e));
  const auto forced = decide_clock(ClockChoice::tsc, e);
  CHECK(forced.kind == ClockKind::tsc);
  CHECK_THAT(forced.reason, Contains("NOT known to be invariant"));
  e.tsc_invariant = true;
  CHECK(decide_clock(ClockChoice::monotonic, e).kind == ClockKind::monotonic);
}

TEST_CASE("clock: the TSC rate drift is the measured rate against the calibrated one", "[clock]") {
  using rdmabench::tsc_rate_drift;
  // 2.6 GHz calibrated; 2.6e9 ticks in one second is no drift.
  CHECK(tsc_rate_drift(2600.0, 2'600'000'000u, 1'000'000'000u) == Approx(0.0).margin(1e-12));
  CHECK(tsc_rate_drift(2600.0, 2'626'000'000u, 1'000'000'000u) == Approx(0.01));
  CHECK(tsc_rate_drift(2600.0, 2'574'000'000u, 1'000'000'000u) == Approx(-0.01));
  CHECK(tsc_rate_drift(2600.0, 5, 0) == 0.0);  // no time passed: nothing to say
}

TEST_CASE("clock: this machine's choice is one of the two, with a reason and a sane rate", "[clock]") {
  const auto clock = rdmabench::choose_clock();
  CHECK_FALSE(clock.description.empty());
  CHECK(clock.ticks_per_us > 1.0);  // no real TSC runs below 1 MHz; the monotonic clock is 1000
}

TEST_CASE("clock: a TSC rate that strayed over the run is warned about, a short run is not judged",
          "[clock]") {
  using rdmabench::MonotonicClock;
  using rdmabench::TscClock;
  const auto measured = rdmabench::choose_clock(ClockChoice::tsc);
  // A calibration "one second ago" that claimed a rate 10% above the real one.
  rdmabench::ClockInfo clock = measured;
  clock.ticks_per_us = measured.ticks_per_us * 1.1;
  clock.calibrated_ns = MonotonicClock::now() - 1'000'000'000u;
  clock.calibrated_tsc = TscClock::now() - static_cast<std::uint64_t>(measured.ticks_per_us * 1e6);
  const auto warning = rdmabench::tsc_drift_warning(clock);
  REQUIRE(warning.has_value());
  CHECK_THAT(*warning, Contains("-9.") && Contains("--clock monotonic"));
  // The same error over a millisecond: too short to tell from read jitter.
  clock.calibrated_ns = MonotonicClock::now() - 1'000'000u;
  clock.calibrated_tsc = TscClock::now() - static_cast<std::uint64_t>(measured.ticks_per_us * 1e3);
  CHECK_FALSE(rdmabench::tsc_drift_warning(clock).has_value());
  // The monotonic clock has no rate to stray.
  clock.kind = ClockKind::monotonic;
  CHECK_FALSE(rdmabench::tsc_drift_warning(clock).has_value());
}

TEST_CASE("clock: the TSC cross-check on this machine compares every CPU and restores affinity",
          "[clock]") {
  const auto before = rdmabench::allowed_cpus();
  ClockEvidence e;
  rdmabench::detail::cross_check_tsc(e, 1000.0);  // ticks per usec: only the units depend on it
  CHECK(rdmabench::allowed_cpus() == before);
  if (!e.tsc_offset_spread_us) {
    WARN("a CPU did not answer within the check's 20 ms budget (a loaded machine): spread unknown");
    return;
  }
  CHECK(e.cpus == rdmabench::format_cpu_list(before));
  CHECK(*e.tsc_offset_spread_us >= 0);
  CHECK(e.tsc_offset_resolution_us >= 0);
  // One CPU has nothing to compare against: no spread, no uncertainty.
  if (before.size() == 1) CHECK(*e.tsc_offset_spread_us == 0);
}

TEST_CASE("clock: the cross-check's reference is the CPU the checking thread is on", "[clock]") {
  using rdmabench::detail::reference_first;
  using Cpus = std::vector<int>;  // visiting order, not an ascending CpuList
  // The thread is pinned to the reference during the check and stays where
  // it last ran after it, so any other reference would move it.
  CHECK(reference_first({0, 1, 2, 3}, 2) == Cpus{2, 0, 1, 3});
  CHECK(reference_first({0, 1, 2, 3}, 0) == Cpus{0, 1, 2, 3});
  CHECK(reference_first({4, 6, 9}, 9) == Cpus{9, 4, 6});
  // Outside the allowed CPUs, or unknown (sched_getcpu failed): as given.
  CHECK(reference_first({0, 1}, 5) == Cpus{0, 1});
  CHECK(reference_first({0, 1}, -1) == Cpus{0, 1});
}
