#include "microbench/overhead_table.hpp"

#include <fmt/format.h>

#include <fstream>
#include <ostream>
#include <thread>

#include "rdmabench/system/cycle_counter.hpp"

#ifndef RDMABENCH_BUILD_TYPE
#define RDMABENCH_BUILD_TYPE "unknown"
#endif

namespace rdmabench::microbench {

namespace {

/// /proc/cpuinfo's "model name" (x86); aarch64 has none, and says so.
std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "(no model name in /proc/cpuinfo)";
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown compiler";
#endif
}

std::string figure(const Spread& s, int decimals) {
  return fmt::format("{:>7.{}f} ({:.{}f}-{:.{}f})", s.median, decimals, s.low, decimals, s.high,
                     decimals);
}

}  // namespace

void print_overhead_table(std::ostream& out, const OverheadRun& run) {
  out << fmt::format(
      "loop_overhead: the timed loops' own bookkeeping per iteration, on a fake completion "
      "queue\n");
  out << fmt::format("CPU:      {} ({} CPUs online)\n", cpu_model(),
                     std::thread::hardware_concurrency());
  out << fmt::format(
      "Counter:  {} at {:.3f} GHz (ticks at that rate, not the core's own cycles when it "
      "runs faster or slower)\n",
      kCounterName, run.counter_ticks_per_us / 1000.0);
  out << fmt::format("A run here would use: {}\n", run.clock_a_run_picks);
  out << fmt::format("Built:    {}, {}\n", compiler(), RDMABENCH_BUILD_TYPE);
  out << fmt::format("Figures:  median (quartiles) of {} runs of {} iterations each\n\n",
                     run.repeats, run.iterations);
  const std::string ticks_header = fmt::format("{} ticks/iteration", kCounterName);
  out << fmt::format("{:<44} {:<24} {}\n", "piece", "ns/iteration", ticks_header);
  const OverheadRow* whole = nullptr;
  for (const auto& row : run.rows) {
    out << fmt::format("{:<44} {:<24} {}\n", row.piece, figure(row.timing.ns, 2),
                       figure(row.timing.ticks, 1));
    if (row.piece == run.whole_sample) whole = &row;
  }
  if (whole) {
    const double ns = whole->timing.ns.median;
    out << fmt::format(
        "\n'{}': {:.1f} ns, {:.1f}% of the {} us of one ib_send_lat sample on a real NIC\n",
        whole->piece, ns, 100.0 * ns / (kRealSendLatencyUs * 1000.0), kRealSendLatencyUs);
  }
}

}  // namespace rdmabench::microbench
