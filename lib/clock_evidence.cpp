#include "clock_evidence.hpp"

#include <cpuid.h>
#include <sched.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <vector>

#include "rdmabench/cpu_affinity.hpp"

namespace rdmabench::detail {

namespace {

bool tsc_is_invariant() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) || eax < 0x80000007) return false;
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return (edx >> 8) & 1;  // "Invariant TSC": constant rate in all P/C states
}

/// The kernel's own choice ("tsc", "hpet", ...): it marks the TSC unstable
/// when it does not trust it to keep time.
std::string kernel_clocksource() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  in >> name;
  return name;
}

double clock_gettime_cost_ns() {
  constexpr int kReads = 2000;
  const auto start = MonotonicClock::now();
  for (int i = 0; i < kReads; ++i) MonotonicClock::now();
  return static_cast<double>(MonotonicClock::now() - start) / kReads;
}

/// TSC minus CLOCK_MONOTONIC_RAW in microseconds on the current CPU, from the
/// read bracketed most tightly by two TSC reads.
double tsc_offset_us(double ticks_per_us) {
  std::uint64_t best_window = std::numeric_limits<std::uint64_t>::max();
  double offset = 0;
  for (int i = 0; i < 500; ++i) {
    const auto before = TscClock::now();
    const auto ns = MonotonicClock::now();
    const auto after = TscClock::now();
    if (after - before < best_window) {
      best_window = after - before;
      const double middle = static_cast<double>(before) + static_cast<double>(after - before) / 2.0;
      offset = middle / ticks_per_us - static_cast<double>(ns) / 1000.0;
    }
  }
  return offset;
}

}  // namespace

ClockEvidence gather_clock_evidence() {
  ClockEvidence e;
  e.tsc_invariant = tsc_is_invariant();
  e.kernel_clocksource = kernel_clocksource();
  e.clock_gettime_ns = clock_gettime_cost_ns();
  return e;
}

void cross_check_tsc(ClockEvidence& evidence, double ticks_per_us) {
  cpu_set_t original;
  // Without the affinity the check cannot run: the spread stays unknown.
  if (::sched_getaffinity(0, sizeof original, &original) != 0) return;
  CpuList cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &original)) cpus.push_back(cpu);
  std::vector<double> offsets;
  for (int cpu : cpus) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (::sched_setaffinity(0, sizeof one, &one) != 0) continue;
    offsets.push_back(tsc_offset_us(ticks_per_us));
  }
  ::sched_setaffinity(0, sizeof original, &original);
  if (offsets.empty()) return;
  const auto [low, high] = std::minmax_element(offsets.begin(), offsets.end());
  evidence.tsc_offset_spread_us = *high - *low;
  evidence.cpus = format_cpu_list(cpus);
}

}  // namespace rdmabench::detail
