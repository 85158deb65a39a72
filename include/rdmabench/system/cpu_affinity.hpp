#pragma once
/// @file
/// Which CPUs the benchmark thread runs on: the RDMA device's NUMA node by
/// default (as perftest users do by hand with numactl), one CPU on request,
/// or wherever the scheduler likes.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

/// CPU numbers, ascending, no duplicates.
using CpuList = std::vector<int>;

/// The kernel's list format: "0-3,8-11" (an empty text is an empty list).
/// Throws Error naming the text when it is malformed.
CpuList parse_cpu_list(const std::string& text);

/// The kernel's list format back: {0,1,2,3,8} -> "0-3,8".
std::string format_cpu_list(const CpuList& cpus);

/// The CPUs this process may run on (sched_getaffinity).
CpuList allowed_cpus();

/// The CPUs of NUMA node `node` (<sysfs>/devices/system/node/nodeN/cpulist);
/// empty when the kernel does not list the node.
CpuList numa_node_cpus(const std::filesystem::path& sysfs, int node);

/// Throws Error unless `cpu` is in `allowed`; the message names the valid CPUs.
void require_allowed_cpu(int cpu, const CpuList& allowed);

/// What the user asked for (--cpu, --numa).
struct CpuPlacementRequest {
  std::optional<int> cpu;          ///< pin to exactly this CPU
  bool follow_device_numa = true;  ///< otherwise: the device's node's CPUs
};

/// What was decided, for the report.
struct CpuPlacement {
  CpuList cpus;                        ///< empty: not pinned
  std::optional<int> device_numa_node;
  std::string description;             ///< "CPUs 0-3 (NUMA node 0 of mlx5_0)"
};

/// Pure decision: `node_cpus` are the CPUs of `device_numa_node` (empty when
/// the node is unknown), `allowed` those of the process. Throws Error for a
/// requested CPU outside `allowed`.
CpuPlacement choose_cpu_placement(const CpuPlacementRequest& request, const std::string& device,
                                  std::optional<int> device_numa_node, const CpuList& node_cpus,
                                  const CpuList& allowed);

/// Looks `device` up in `sysfs`, decides, and pins the calling thread (threads
/// it starts later inherit the set). Throws Error when pinning fails.
CpuPlacement place_thread_near_device(const CpuPlacementRequest& request, const std::string& device,
                                      const std::filesystem::path& sysfs = "/sys");

/// For a helper thread (a load's sender or receiver): with --cpu the thread
/// that started it was pinned to one CPU, and it inherited that; two busy
/// threads on one CPU would time the scheduler. So it moves itself to
/// every other allowed CPU. Where there is none, or that is refused (a
/// cpuset without them), it stays: best effort, never an error.
void leave_a_pinned_cpu();

}  // namespace rdmabench
