#include "system/clock_evidence.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "rdmabench/system/cpu_affinity.hpp"

namespace rdmabench::detail {

namespace {

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

/// What causally ordered reads say about (TSC on one CPU - TSC on the
/// reference CPU), in ticks: it lies in [low, high]. low > high means a read
/// that came later showed an earlier TSC, by low - high.
struct OffsetBounds {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool measured = false;
};

bool pin_this_thread(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return ::sched_setaffinity(0, sizeof one, &one) == 0;
}

/// The reference thread (on `reference`) reads its TSC and raises a round;
/// the other (on `other`) reads its own on seeing it and answers; the
/// reference reads again on the answer. The other's read lies between the
/// two, so the offset lies between (t2 - t3) and (t2 - t1); the tightest
/// round of many bounds it, whatever the scheduler does in between. No
/// clock_gettime is involved: under emulation its read lands unevenly in its
/// window, and readings through it put agreeing TSCs apart
/// (docs/methodology.md#clocks).
OffsetBounds tsc_offset_bounds(int reference, int other) {
  constexpr int kRounds = 2000;
  constexpr auto kBudget = std::chrono::milliseconds(20);
  std::atomic<std::uint64_t> round{0}, answered{0}, answer_tsc{0};
  std::atomic<bool> stop{false}, other_pinned{false}, other_failed{false};
  std::thread responder([&] {
    if (!pin_this_thread(other)) {
      other_failed = true;
      return;
    }
    other_pinned = true;
    std::uint64_t seen = 0;
    while (!stop.load(std::memory_order_acquire)) {
      const std::uint64_t r = round.load(std::memory_order_acquire);
      if (r == seen) continue;
      answer_tsc.store(TscClock::fenced_now(), std::memory_order_relaxed);
      answered.store(r, std::memory_order_release);
      seen = r;
    }
  });
  OffsetBounds b;
  const auto deadline = std::chrono::steady_clock::now() + kBudget;
  if (pin_this_thread(reference)) {
    while (!other_pinned && !other_failed && std::chrono::steady_clock::now() < deadline) {
    }
    for (std::uint64_t r = 1; other_pinned && r <= kRounds; ++r) {
      const auto t1 = TscClock::fenced_now();
      round.store(r, std::memory_order_release);
      bool late = false;
      while (answered.load(std::memory_order_acquire) != r)
        if ((late = std::chrono::steady_clock::now() > deadline)) break;
      if (late) break;
      const auto t3 = TscClock::fenced_now();
      const auto t2 = answer_tsc.load(std::memory_order_relaxed);
      b.low = std::max(b.low, static_cast<double>(t2) - static_cast<double>(t3));
      b.high = std::min(b.high, static_cast<double>(t2) - static_cast<double>(t1));
      b.measured = true;
    }
  }
  stop.store(true, std::memory_order_release);
  responder.join();
  return b;
}

}  // namespace

ClockEvidence gather_clock_evidence() {
  ClockEvidence e;
  e.tsc_invariant = counter_invariant();
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
  // The reference is the CPU this thread is on, so it stays there: pinned to
  // the first CPU instead, it was still there after the check, both sides of
  // a pair started on it, and on siw that cost the write_lat p99 (see
  // docs/methodology.md#siw-transmit-handoff-and-p99).
  const std::vector<int> order = reference_first(cpus, ::sched_getcpu());
  // Every CPU against the reference: the centre of each offset's bounds, how
  // wide the widest bounds are, and how far any crossed (a TSC that ran
  // backwards from one CPU to another, which counts against the spread).
  std::vector<double> centres{0.0};
  double resolution = 0;
  double backwards = 0;
  bool complete = !order.empty();
  for (std::size_t k = 1; k < order.size() && complete; ++k) {
    const OffsetBounds b = tsc_offset_bounds(order.front(), order[k]);
    complete = b.measured;
    if (!complete) break;
    centres.push_back((b.low + b.high) / 2 / ticks_per_us);
    const double width = (b.high - b.low) / ticks_per_us;
    if (width >= 0)
      resolution = std::max(resolution, width / 2);
    else
      backwards = std::max(backwards, -width);
  }
  ::sched_setaffinity(0, sizeof original, &original);
  if (!complete) return;
  const auto [low, high] = std::minmax_element(centres.begin(), centres.end());
  evidence.tsc_offset_spread_us = *high - *low + backwards;
  evidence.tsc_offset_resolution_us = resolution;
  evidence.cpus = format_cpu_list(cpus);
}

std::vector<int> reference_first(const CpuList& cpus, int here) {
  std::vector<int> order(cpus.begin(), cpus.end());
  const auto it = std::find(order.begin(), order.end(), here);
  if (it != order.end()) std::rotate(order.begin(), it, it + 1);
  return order;
}

}  // namespace rdmabench::detail
