// PCIe paths and the GPU-NIC relationship codes of nvidia-smi topo -m.
//
// A PCIe switch shows up in sysfs as an upstream port with one downstream
// port per link, each a PCI bridge of its own:
//   pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0
//   host bridge root port   switch (up)  switch (down) endpoint
// So, as NCCL does, we name a switch by its upstream port, found every second
// step up from an endpoint, and count the root port as part of the host
// bridge. Two endpoints below one switch are PIX; below a switch tree whose
// nearest common switch is further up, PXB; with no common switch, they
// meet in the host bridge: PHB.
#include <regex>

#include "rdmabench/topology/topology.hpp"

namespace rdmabench {

namespace {

bool is_host_bridge(const std::string& name) {
  static const std::regex pattern("pci[0-9a-f]{4,}:[0-9a-f]{2}");
  return std::regex_match(name, pattern);
}

bool is_pci_function(const std::string& name) {
  static const std::regex pattern("[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
  return std::regex_match(name, pattern);
}

/// Upstream ports of the switches above `location`, nearest first.
std::vector<std::string> switches_above(const PciLocation& location) {
  std::vector<std::string> switches;
  const auto& p = location.path;
  // path[0] is the root port; path.back() the device itself.
  for (auto i = static_cast<std::ptrdiff_t>(p.size()) - 3; i >= 1; i -= 2)
    switches.push_back(p[static_cast<std::size_t>(i)]);
  return switches;
}

bool same_known_node(std::optional<int> a, std::optional<int> b) { return a && b && *a == *b; }

}  // namespace

std::string to_string(PciRelationship relationship) {
  switch (relationship) {
    case PciRelationship::pix: return "PIX";
    case PciRelationship::pxb: return "PXB";
    case PciRelationship::phb: return "PHB";
    case PciRelationship::node: return "NODE";
    case PciRelationship::sys: return "SYS";
  }
  return "?";
}

std::string describe(PciRelationship relationship) {
  switch (relationship) {
    case PciRelationship::pix: return "at most a single PCIe bridge (one switch)";
    case PciRelationship::pxb: return "multiple PCIe bridges, without the host bridge";
    case PciRelationship::phb: return "through a PCIe host bridge (the CPU's root complex)";
    case PciRelationship::node: return "between PCIe host bridges within one NUMA node";
    case PciRelationship::sys: return "across NUMA nodes (the SMP interconnect), or nodes unknown";
  }
  return "?";
}

std::optional<PciLocation> pci_location(const std::filesystem::path& device_dir) {
  std::vector<std::string> parts;
  for (const auto& part : device_dir) parts.push_back(part.string());
  // The last host bridge on the path: hypervisors (Hyper-V's vmbus) put PCI
  // trees below other devices.
  std::size_t bridge = parts.size();
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (is_host_bridge(parts[i])) bridge = i;
  if (bridge + 1 >= parts.size()) return std::nullopt;
  PciLocation location;
  location.host_bridge = parts[bridge];
  for (std::size_t i = bridge + 1; i < parts.size(); ++i) {
    if (!is_pci_function(parts[i])) return std::nullopt;
    location.path.push_back(parts[i]);
  }
  location.address = location.path.back();
  return location;
}

PciRelationship classify(const PciLocation& a, std::optional<int> node_a, const PciLocation& b,
                         std::optional<int> node_b) {
  if (a.host_bridge != b.host_bridge)
    return same_known_node(node_a, node_b) ? PciRelationship::node : PciRelationship::sys;
  // Functions of one device, or two devices on one bridge: one bridge apart.
  if (a.path.size() >= 2 && b.path.size() >= 2 && a.path[a.path.size() - 2] == b.path[b.path.size() - 2])
    return PciRelationship::pix;
  const auto above_a = switches_above(a), above_b = switches_above(b);
  for (std::size_t i = 0; i < above_a.size(); ++i)
    for (std::size_t j = 0; j < above_b.size(); ++j)
      if (above_a[i] == above_b[j]) return i + j == 0 ? PciRelationship::pix : PciRelationship::pxb;
  return PciRelationship::phb;
}

std::optional<PciRelationship> relationship(const Gpu& gpu, const RdmaDevice& nic) {
  if (!nic.pci) return std::nullopt;
  return classify(gpu.pci, gpu.numa_node, *nic.pci, nic.numa_node);
}

}  // namespace rdmabench
