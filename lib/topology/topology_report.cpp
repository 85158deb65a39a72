// The topology for people (console tables) and for scripts (JSON).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

#include "rdmabench/topology/path_ceiling.hpp"
#include "rdmabench/topology/topology.hpp"

namespace rdmabench {

namespace {

constexpr PciRelationship kAllRelationships[] = {PciRelationship::pix, PciRelationship::pxb,
                                                 PciRelationship::phb, PciRelationship::node,
                                                 PciRelationship::sys};

nlohmann::json node_json(std::optional<int> node) { return node ? nlohmann::json(*node) : nlohmann::json(); }

std::string node_text(std::optional<int> node) { return node ? std::to_string(*node) : "?"; }

void add_pci_json(nlohmann::json& j, const PciLocation& pci) {
  j["pci_address"] = pci.address;
  j["host_bridge"] = pci.host_bridge;
  j["pcie_path"] = pci.path;
}

/// "pci0000:00 > 0000:00:01.0 > 0000:01:00.0"
std::string path_text(const PciLocation& pci) {
  return fmt::format("{} > {}", pci.host_bridge, fmt::join(pci.path, " > "));
}

std::string gpu_name(const Gpu& gpu) { return fmt::format("GPU{}", gpu.index); }

std::string relationship_text(const Gpu& gpu, const RdmaDevice& nic) {
  const auto r = relationship(gpu, nic);
  return r ? to_string(*r) : "virt";
}

/// Every link trained below its maximum, devices first.
std::vector<std::string> link_warnings(const Topology& t) {
  std::vector<std::string> warnings;
  for (const auto& d : t.rdma_devices)
    if (d.link)
      if (auto w = degraded_link_warning(*d.link, fmt::format("{} (PCI {})", d.name, d.pci->address)))
        warnings.push_back(*w);
  for (const auto& g : t.gpus)
    if (g.link)
      if (auto w = degraded_link_warning(*g.link, fmt::format("{} (PCI {})", gpu_name(g), g.pci.address)))
        warnings.push_back(*w);
  return warnings;
}

std::string link_text(const std::optional<PcieLink>& link) {
  return link ? "PCIe " + describe(*link) : "PCIe link not in sysfs";
}

/// Each device's and GPU's link, and each port's ceiling with its arithmetic.
void print_links(std::ostream& out, const Topology& t) {
  if (t.rdma_devices.empty() && t.gpus.empty()) return;
  fmt::print(out, "Links and achievable ceilings (payload; docs/methodology.md shows the arithmetic):\n");
  for (const auto& d : t.rdma_devices) {
    fmt::print(out, "  {:<12} {}\n", d.name, d.is_virtual() ? "no PCIe link (soft device)" : link_text(d.link));
    for (const auto& port : d.ports)
      fmt::print(out, "  {:<12}   port {}: {}, {}; achievable {}\n", "", port.number,
                 port.rate.empty() ? "rate unknown" : port.rate,
                 port.link_layer.empty() ? "link layer unknown" : port.link_layer,
                 describe(port_path_ceiling(d, port)));
  }
  for (const auto& g : t.gpus) {
    const auto ceiling = g.link ? pcie_ceiling(*g.link) : std::nullopt;
    fmt::print(out, "  {:<12} {}{}\n", gpu_name(g), link_text(g.link),
               ceiling ? fmt::format("; carries at most {:.1f} Gb/s ({})", ceiling->gbps, describe(*ceiling)) : "");
  }
  const auto warnings = link_warnings(t);
  for (const auto& w : warnings) fmt::print(out, "Warning: {}\n", w);
}

}  // namespace

nlohmann::json to_json(const Topology& t) {
  nlohmann::json j = {{"rdma_devices", nlohmann::json::array()},
                      {"gpus", nlohmann::json::array()},
                      {"matrix", nlohmann::json::array()}};
  for (const auto& d : t.rdma_devices) {
    nlohmann::json device = {{"name", d.name}, {"virtual", d.is_virtual()}, {"netdev", d.netdev},
                             {"numa_node", node_json(d.numa_node)}};
    if (d.pci) add_pci_json(device, *d.pci);
    device["pcie_link"] = d.link ? to_json(*d.link) : nlohmann::json();
    device["ports"] = nlohmann::json::array();
    for (const auto& port : d.ports)
      device["ports"].push_back({{"number", port.number},
                                 {"rate", port.rate},
                                 {"link_layer", port.link_layer},
                                 {"achievable", to_json(port_path_ceiling(d, port))}});
    j["rdma_devices"].push_back(device);
  }
  for (const auto& g : t.gpus) {
    nlohmann::json gpu = {{"index", g.index}, {"vendor", g.vendor}, {"vendor_id", g.vendor_id},
                          {"device_id", g.device_id}, {"numa_node", node_json(g.numa_node)}};
    add_pci_json(gpu, g.pci);
    gpu["pcie_link"] = g.link ? to_json(*g.link) : nlohmann::json();
    const auto ceiling = g.link ? pcie_ceiling(*g.link) : std::nullopt;
    gpu["pcie_achievable_Gbps"] = ceiling ? nlohmann::json(ceiling->gbps) : nlohmann::json();
    j["gpus"].push_back(gpu);
  }
  for (const auto& g : t.gpus)
    for (const auto& d : t.rdma_devices) {
      const auto r = relationship(g, d);
      j["matrix"].push_back({{"gpu", g.index},
                             {"gpu_pci_address", g.pci.address},
                             {"nic", d.name},
                             {"relationship", r ? nlohmann::json(to_string(*r)) : nlohmann::json()},
                             {"why", r ? describe(*r) : "soft device: no PCIe path to the GPU"}});
    }
  nlohmann::json legend = nlohmann::json::object();
  for (const auto r : kAllRelationships) legend[to_string(r)] = describe(r);
  j["legend"] = legend;
  j["warnings"] = link_warnings(t);
  return j;
}

void print_topology(std::ostream& out, const Topology& t) {
  if (t.rdma_devices.empty()) {
    fmt::print(out, "RDMA devices: none (no /sys/class/infiniband entries; load a driver, or "
                    "use tools/rdma-lab for soft devices)\n");
  } else {
    fmt::print(out, "RDMA devices:\n  {:<12} {:<14} {:>4}  {:<12} {}\n", "name", "PCI address", "NUMA",
               "netdev", "PCIe path (host bridge > root port > ... > device)");
    for (const auto& d : t.rdma_devices)
      fmt::print(out, "  {:<12} {:<14} {:>4}  {:<12} {}\n", d.name, d.pci ? d.pci->address : "virtual",
                 node_text(d.numa_node), d.netdev.empty() ? "-" : d.netdev,
                 d.pci ? path_text(*d.pci) : "(soft device, no PCI parent)");
  }
  if (t.gpus.empty()) {
    fmt::print(out, "GPUs: none (no PCI display-class function from NVIDIA, AMD or Intel)\n");
  } else {
    fmt::print(out, "GPUs:\n  {:<5} {:<7} {:<7} {:<14} {:>4}  {}\n", "GPU", "vendor", "device",
               "PCI address", "NUMA", "PCIe path");
    for (const auto& g : t.gpus)
      fmt::print(out, "  {:<5} {:<7} {:<7} {:<14} {:>4}  {}\n", gpu_name(g), g.vendor, g.device_id,
                 g.pci.address, node_text(g.numa_node), path_text(g.pci));
  }
  print_links(out, t);
  if (t.gpus.empty() || t.rdma_devices.empty()) return;
  fmt::print(out, "GPU x NIC:\n  {:<6}", "");
  for (const auto& d : t.rdma_devices) fmt::print(out, " {:>8}", d.name);
  fmt::print(out, "\n");
  for (const auto& g : t.gpus) {
    fmt::print(out, "  {:<6}", gpu_name(g));
    for (const auto& d : t.rdma_devices) fmt::print(out, " {:>8}", relationship_text(g, d));
    fmt::print(out, "\n");
  }
  fmt::print(out, "Legend:\n");
  for (const auto r : kAllRelationships) fmt::print(out, "  {:<5} {}\n", to_string(r), describe(r));
  const bool any_virtual = std::any_of(t.rdma_devices.begin(), t.rdma_devices.end(),
                                      [](const RdmaDevice& d) { return d.is_virtual(); });
  if (any_virtual) fmt::print(out, "  virt  soft device (rxe, siw): no PCIe path to compare\n");
}

}  // namespace rdmabench
