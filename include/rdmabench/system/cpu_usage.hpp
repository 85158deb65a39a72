#pragma once
/// @file
/// CPU cost of a timed region, as qperf reports it: the CPU time this process
/// used, and how busy the whole machine was, from two snapshots of
/// /proc/self/stat and /proc/stat taken around the region.
///
/// Read these figures knowing their limits:
/// - Resolution: the kernel reports both files in clock ticks
///   (sysconf(_SC_CLK_TCK), 100 per second on Linux: 10 ms), and it samples
///   the machine counters per scheduler tick. A region of a few ticks gets
///   coarse figures; CpuUsage::resolution_s says how coarse (each counter can
///   be off by about one tick at each end). Time regions of a second or more.
/// - Machine figures count every process on the machine, not just this
///   benchmark: when client and server run on one host, the peer's CPU is in
///   them too. In a container /proc/stat is usually the host's, so they cover
///   the host.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace rdmabench {

/// CPU time this process (all its threads, not its children) has used.
struct ProcessCpu {
  double user_s = 0;
  double system_s = 0;
};

/// The aggregate "cpu" line of /proc/stat: clock ticks summed over all CPUs
/// since boot. `user` and `nice` include the time spent running guests (the
/// kernel counts guest time in both them and the guest fields, which are
/// therefore not read).
struct MachineCpu {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  int cpus = 0;  ///< online CPUs: the cpuN lines
};

/// Everything cpu_usage_between() needs from one moment.
struct CpuSnapshot {
  double wall_s = 0;  ///< CLOCK_MONOTONIC
  ProcessCpu process;
  MachineCpu machine;
  long ticks_per_second = 0;  ///< the unit of `machine` (and of the file behind `process`)
};

/// Reads the clock, /proc/self/stat and /proc/stat. Throws when a file cannot
/// be read or parsed.
CpuSnapshot take_cpu_snapshot();

/// utime and stime (fields 14 and 15, in clock ticks) of a /proc/<pid>/stat
/// text, in seconds. The command name (field 2) is in parentheses and may
/// itself hold spaces and parentheses, so fields are counted after the last
/// ')'. Throws on text that does not have these fields or on
/// `ticks_per_second` <= 0.
ProcessCpu parse_proc_self_stat(const std::string& text, long ticks_per_second);

/// The aggregate "cpu" line of a /proc/stat text, and the number of "cpuN"
/// lines. Kernels before 2.6.11 print fewer than 8 fields (2.4: only the
/// first 4); the missing ones are 0. Throws on text without a "cpu" line,
/// without cpuN lines, or with fewer than 4 numbers on the "cpu" line.
MachineCpu parse_proc_stat(const std::string& text);

/// The CPU cost of the region between two snapshots. "Cores" are CPU seconds
/// per wall second: 1.0 is one core busy all the time.
struct CpuUsage {
  double wall_s = 0;
  double resolution_s = 0;  ///< one clock tick; see the file comment

  double process_cpu_s = 0;  ///< user + system
  double process_cores = 0;
  double process_user_cores = 0;
  double process_system_cores = 0;
  /// CPU seconds per 10^9 bytes moved; empty when no bytes were moved.
  std::optional<double> process_cpu_s_per_gb;

  int machine_cpus = 0;
  /// Every state but idle and iowait, so steal counts as busy (the CPU had
  /// work; the hypervisor ran something else).
  double machine_cores = 0;
  double machine_user_cores = 0, machine_nice_cores = 0, machine_system_cores = 0;
  double machine_irq_cores = 0, machine_softirq_cores = 0, machine_steal_cores = 0;
  /// Empty when the kernel moved time between idle and iowait between the
  /// snapshots (it may, with tickless idle: its documentation calls iowait
  /// unreliable), so that one of the two went backwards.
  std::optional<double> machine_iowait_cores;

  bool operator==(const CpuUsage&) const = default;
};

/// The usage between `before` and `after` (taken in that order), with
/// `bytes_moved` bytes transferred in between. Throws instead of returning
/// wrong figures: when the wall time between them is not positive, when any
/// counter went backwards (snapshots swapped, or a counter wrapped), or when
/// their clock tick rates or CPU counts differ.
CpuUsage cpu_usage_between(const CpuSnapshot& before, const CpuSnapshot& after,
                           std::uint64_t bytes_moved);

/// {"wall_s", "resolution_s", "process": {"cpu_s", "cores", "user_cores",
/// "system_cores", "cpu_s_per_GB"}, "machine": {"cpus", "cores", "user_cores",
/// "nice_cores", "system_cores", "irq_cores", "softirq_cores", "steal_cores",
/// "iowait_cores"}}; an empty optional is null.
nlohmann::json to_json(const CpuUsage& usage);

}  // namespace rdmabench
