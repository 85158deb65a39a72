// Pinning the benchmark thread near its RDMA device.
#include "rdmabench/system/cpu_affinity.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/topology/topology.hpp"

namespace rdmabench {

namespace {

int parse_cpu_number(const std::string& number, const std::string& text) {
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos || number.size() > 6)
    throw Error(fmt::format("CPU list '{}' is malformed at '{}': expected numbers and ranges such as 0-3,8",
                            text, number));
  return std::stoi(number);
}

CpuList intersect(const CpuList& a, const CpuList& b) {
  CpuList both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both;
}

std::string node_text(const std::string& device, std::optional<int> node) {
  return node ? fmt::format("{} is on NUMA node {}", device, *node)
              : fmt::format("the NUMA node of {} is unknown", device);
}

}  // namespace

CpuList parse_cpu_list(const std::string& text) {
  CpuList cpus;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto dash = item.find('-');
    const int first = parse_cpu_number(item.substr(0, dash), text);
    const int last = dash == std::string::npos ? first : parse_cpu_number(item.substr(dash + 1), text);
    if (last < first) throw Error(fmt::format("CPU list '{}' has a backwards range '{}'", text, item));
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const CpuList& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return text;
}

CpuList allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) throw_system_error("sched_getaffinity", errno);
  CpuList cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

CpuList numa_node_cpus(const std::filesystem::path& sysfs, int node) {
  std::ifstream in(sysfs / "devices/system/node" / fmt::format("node{}", node) / "cpulist");
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  return parse_cpu_list(line);
}

void require_allowed_cpu(int cpu, const CpuList& allowed) {
  if (!std::binary_search(allowed.begin(), allowed.end(), cpu))
    throw Error(fmt::format("CPU {} is not one this process may run on; valid CPUs: {}", cpu,
                            format_cpu_list(allowed)));
}

CpuPlacement choose_cpu_placement(const CpuPlacementRequest& request, const std::string& device,
                                  std::optional<int> device_numa_node, const CpuList& node_cpus,
                                  const CpuList& allowed) {
  CpuPlacement placement;
  placement.device_numa_node = device_numa_node;
  if (request.cpu) {
    require_allowed_cpu(*request.cpu, allowed);
    placement.cpus = {*request.cpu};
    // A CPU far from the device is a legitimate experiment, but say so.
    const bool near = std::binary_search(node_cpus.begin(), node_cpus.end(), *request.cpu);
    placement.description =
        fmt::format("CPU {} as asked; {}{}", *request.cpu, node_text(device, device_numa_node),
                    node_cpus.empty() || near ? "" : fmt::format(" (CPUs {})", format_cpu_list(node_cpus)));
    return placement;
  }
  if (!request.follow_device_numa) {
    placement.description = fmt::format("not pinned (NUMA placement off); {}", node_text(device, device_numa_node));
    return placement;
  }
  if (!device_numa_node || node_cpus.empty()) {
    placement.description = fmt::format("not pinned: {}", node_text(device, device_numa_node));
    return placement;
  }
  placement.cpus = intersect(node_cpus, allowed);
  if (placement.cpus.empty()) {
    placement.description =
        fmt::format("not pinned: none of NUMA node {}'s CPUs ({}) may be used by this process (allowed: {})",
                    *device_numa_node, format_cpu_list(node_cpus), format_cpu_list(allowed));
    return placement;
  }
  placement.description = fmt::format("CPUs {} (NUMA node {} of {})", format_cpu_list(placement.cpus),
                                      *device_numa_node, device);
  return placement;
}

CpuPlacement place_thread_near_device(const CpuPlacementRequest& request, const std::string& device,
                                      const std::filesystem::path& sysfs) {
  const Topology topology = scan_topology(sysfs);
  const RdmaDevice* found = find_rdma_device(topology, device);
  const std::optional<int> node = found ? found->numa_node : std::nullopt;
  const auto placement =
      choose_cpu_placement(request, device, node, node ? numa_node_cpus(sysfs, *node) : CpuList{}, allowed_cpus());
  if (placement.cpus.empty()) return placement;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int cpu : placement.cpus) CPU_SET(cpu, &set);
  // Pid 0 is the calling thread, not the whole process.
  if (::sched_setaffinity(0, sizeof set, &set) != 0)
    throw_system_error("sched_setaffinity", errno, "CPUs " + format_cpu_list(placement.cpus));
  return placement;
}

void leave_a_pinned_cpu() {
  cpu_set_t inherited;
  CPU_ZERO(&inherited);
  if (::sched_getaffinity(0, sizeof inherited, &inherited) != 0 || CPU_COUNT(&inherited) != 1) return;
  cpu_set_t others;
  CPU_ZERO(&others);
  const int cpus = std::min(::get_nprocs_conf(), CPU_SETSIZE);
  for (int cpu = 0; cpu < cpus; ++cpu)
    if (!CPU_ISSET(cpu, &inherited)) CPU_SET(cpu, &others);
  if (CPU_COUNT(&others) > 0) (void)::sched_setaffinity(0, sizeof others, &others);
}

}  // namespace rdmabench
