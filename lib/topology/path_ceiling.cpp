// A device's (and GPU's) ceiling from what the topology read: sysfs's port
// rate and PCIe links, turned into figures by achievable_ceiling.
#include "rdmabench/topology/path_ceiling.hpp"

#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>

#include "rdmabench/topology/port_rate.hpp"

namespace rdmabench {

namespace {

/// rdma_topo's MTU where nothing narrows it: IB's largest.
constexpr std::uint32_t kLargestIbMtu = 4096;

std::optional<PortCeiling> ceiling_of_port(const RdmaPort& port, PacketHeaders headers, std::uint32_t mtu_bytes,
                                           bool mtu_assumed) {
  const auto rate = parse_port_rate(port.rate);
  if (!rate || *rate <= 0 || mtu_bytes == 0) return std::nullopt;
  return port_ceiling(*rate, port_speed_name(port.rate), headers, mtu_bytes, mtu_assumed);
}

const RdmaPort* find_port(const RdmaDevice& device, int number) {
  const auto it = std::find_if(device.ports.begin(), device.ports.end(),
                               [&](const RdmaPort& p) { return p.number == number; });
  return it == device.ports.end() ? nullptr : &*it;
}

std::string device_who(const RdmaDevice& device) {
  return device.pci ? fmt::format("{} (PCI {})", device.name, device.pci->address) : device.name;
}

/// The device's side of a path: its link, warnings, and the port's rate.
PathCeiling device_side(const RdmaDevice& device, const RdmaPort* port) {
  PathCeiling path;
  path.device_found = true;
  path.soft_device = device.is_virtual();
  if (device.pci) path.device_address = device.pci->address;
  path.device_link = device.link;
  if (port) path.port_rate = port->rate;
  if (device.link)
    if (auto warning = degraded_link_warning(*device.link, device_who(device))) path.warnings.push_back(*warning);
  return path;
}

}  // namespace

PacketHeaders packet_headers(const Transport& transport, std::optional<int> ip_family) {
  const bool ipv4 = transport.kind == TransportKind::iwarp ? ip_family.value_or(AF_INET) == AF_INET
                                                           : is_ipv4_mapped(transport.gid.gid);
  switch (transport.kind) {
    case TransportKind::infiniband:
      return transport.global_route ? PacketHeaders::infiniband_global : PacketHeaders::infiniband;
    case TransportKind::roce_v1: return PacketHeaders::roce_v1;
    case TransportKind::roce_v2: return ipv4 ? PacketHeaders::roce_v2_ipv4 : PacketHeaders::roce_v2_ipv6;
    case TransportKind::iwarp: return ipv4 ? PacketHeaders::iwarp_ipv4 : PacketHeaders::iwarp_ipv6;
  }
  return PacketHeaders::roce_v2_ipv4;
}

PathCeiling path_ceiling(const Topology& topology, const std::string& device_name, int port_number,
                         PacketHeaders headers, std::uint32_t mtu_bytes, const std::string& gpu_address) {
  const RdmaDevice* device = find_rdma_device(topology, device_name);
  if (!device) return {};
  const RdmaPort* port = find_port(*device, port_number);
  PathCeiling path = device_side(*device, port);
  std::optional<PcieCeiling> gpu_pcie;
  if (!gpu_address.empty()) {
    path.gpu_address = gpu_address;
    const auto gpu = std::find_if(topology.gpus.begin(), topology.gpus.end(),
                                  [&](const Gpu& g) { return g.pci.address == gpu_address; });
    if (gpu != topology.gpus.end() && gpu->link) {
      path.gpu_link = gpu->link;
      gpu_pcie = pcie_ceiling(*gpu->link);
      if (auto warning = degraded_link_warning(*gpu->link, fmt::format("GPU{} (PCI {})", gpu->index, gpu_address)))
        path.warnings.push_back(*warning);
    }
  }
  path.ceiling = achievable_ceiling(port ? ceiling_of_port(*port, headers, mtu_bytes, false) : std::nullopt,
                                    device->link ? pcie_ceiling(*device->link) : std::nullopt, gpu_pcie);
  return path;
}

PathCeiling port_path_ceiling(const RdmaDevice& device, const RdmaPort& port) {
  PathCeiling path = device_side(device, &port);
  const bool ethernet = port.link_layer == "Ethernet";
  std::uint32_t mtu = kLargestIbMtu;
  if (ethernet && device.netdev_mtu) mtu = roce_mtu_for_netdev(*device.netdev_mtu).value_or(0);
  path.ceiling = achievable_ceiling(
      ceiling_of_port(port, ethernet ? PacketHeaders::roce_v2_ipv4 : PacketHeaders::infiniband, mtu, true),
      device.link ? pcie_ceiling(*device.link) : std::nullopt);
  return path;
}

std::string describe(const PathCeiling& path) {
  if (!path.ceiling) {
    if (path.port_rate.empty()) return "unknown: the port's rate is not readable and no PCIe link is known";
    return fmt::format("unknown: neither the port's rate ('{}') nor a PCIe link gives a figure", path.port_rate);
  }
  const std::string text = describe(*path.ceiling);
  if (path.soft_device) return text + "; soft device: no PCIe link, the port's rate alone";
  if (!path.device_link) return text + "; the device's PCIe link is not in sysfs";
  return text;
}

}  // namespace rdmabench
