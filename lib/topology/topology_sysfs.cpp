// Reading the topology from sysfs: RDMA devices from class/infiniband, GPUs
// from the PCI class and vendor of every function in bus/pci/devices.
#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/topology/topology.hpp"
#include "topology/sysfs_attribute.hpp"

namespace fs = std::filesystem;

namespace rdmabench {

namespace {

using detail::read_attribute;

/// numa_node reads -1 when the platform does not say.
std::optional<int> read_numa_node(const fs::path& device_dir) {
  const auto text = read_attribute(device_dir / "numa_node");
  if (!text) return std::nullopt;
  try {
    const int node = std::stoi(*text);
    return node >= 0 ? std::optional<int>(node) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

/// The NUMA nodes the kernel knows (devices/system/node/nodeN).
std::vector<int> numa_nodes(const fs::path& sysfs) {
  static const std::regex pattern("node([0-9]+)");
  std::vector<int> nodes;
  for (const auto& entry : sorted_entries(sysfs / "devices/system/node")) {
    std::smatch m;
    const auto name = entry.filename().string();
    if (std::regex_match(name, m, pattern)) nodes.push_back(std::stoi(m[1]));
  }
  return nodes;
}

/// A soft device names its network interface in `parent` (rxe) or in its
/// GID table's netdev attributes (siw, and rxe too).
std::string soft_device_netdev(const fs::path& ib_dir) {
  if (auto parent = read_attribute(ib_dir / "parent"); parent && !parent->empty()) return *parent;
  if (auto ndev = read_attribute(ib_dir / "ports/1/gid_attrs/ndevs/0"); ndev && !ndev->empty()) return *ndev;
  return {};
}

/// Ports as sysfs numbers them (ports/1, ports/2), each with its rate and
/// link layer.
std::vector<RdmaPort> read_ports(const fs::path& ib_dir) {
  static const std::regex number("[0-9]{1,3}");
  std::vector<RdmaPort> ports;
  for (const auto& entry : sorted_entries(ib_dir / "ports")) {
    const auto name = entry.filename().string();
    if (!std::regex_match(name, number)) continue;
    RdmaPort port;
    port.number = std::stoi(name);
    port.rate = read_attribute(entry / "rate").value_or("");
    port.link_layer = read_attribute(entry / "link_layer").value_or("");
    ports.push_back(std::move(port));
  }
  std::sort(ports.begin(), ports.end(), [](const RdmaPort& a, const RdmaPort& b) { return a.number < b.number; });
  return ports;
}

std::optional<std::uint32_t> read_netdev_mtu(const fs::path& netdev_dir) {
  const auto text = read_attribute(netdev_dir / "mtu");
  if (!text) return std::nullopt;
  try {
    const long mtu = std::stol(*text);
    return mtu > 0 && mtu < (1L << 20) ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(mtu)) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

RdmaDevice read_rdma_device(const fs::path& ib_dir) {
  RdmaDevice device;
  device.name = ib_dir.filename().string();
  device.ports = read_ports(ib_dir);
  std::error_code ec;
  // PCI devices link to their function; soft devices live in devices/virtual.
  const auto function_dir = fs::canonical(ib_dir / "device", ec);
  if (!ec) device.pci = pci_location(function_dir);
  if (device.pci) {
    device.numa_node = read_numa_node(function_dir);
    device.link = read_pcie_link(function_dir);
    const auto nets = sorted_entries(function_dir / "net");
    if (!nets.empty()) {
      device.netdev = nets.front().filename().string();
      device.netdev_mtu = read_netdev_mtu(nets.front());
    }
  } else {
    device.netdev = soft_device_netdev(ib_dir);
  }
  return device;
}

struct GpuVendor {
  const char* id;
  const char* name;
};

// Only makers of compute GPUs: servers also carry display adapters of class
// 0x0300 (ASPEED and Matrox BMC graphics, qemu's bochs and virtio-gpu) that
// no benchmark can use.
constexpr GpuVendor kGpuVendors[] = {{"0x10de", "NVIDIA"}, {"0x1002", "AMD"}, {"0x8086", "Intel"}};

/// PCI base class 03 (display): VGA 0x0300, 3D 0x0302 (NVIDIA's data-centre
/// GPUs), other 0x0380 (some AMD Instinct).
bool is_gpu_class(const std::string& pci_class) {
  const auto head = pci_class.substr(0, 6);
  return head == "0x0300" || head == "0x0302" || head == "0x0380";
}

std::optional<Gpu> read_gpu(const fs::path& function_dir) {
  const auto pci_class = read_attribute(function_dir / "class");
  const auto vendor_id = read_attribute(function_dir / "vendor");
  if (!pci_class || !vendor_id || !is_gpu_class(*pci_class)) return std::nullopt;
  const auto vendor = std::find_if(std::begin(kGpuVendors), std::end(kGpuVendors),
                                   [&](const GpuVendor& v) { return *vendor_id == v.id; });
  if (vendor == std::end(kGpuVendors)) return std::nullopt;
  auto location = pci_location(function_dir);
  if (!location) return std::nullopt;
  Gpu gpu;
  gpu.vendor = vendor->name;
  gpu.vendor_id = *vendor_id;
  gpu.device_id = read_attribute(function_dir / "device").value_or("");
  gpu.pci = std::move(*location);
  gpu.link = read_pcie_link(function_dir);
  gpu.numa_node = read_numa_node(function_dir);
  return gpu;
}

}  // namespace

Topology scan_topology(const fs::path& sysfs) {
  std::error_code ec;
  if (!fs::is_directory(sysfs / "devices", ec))
    throw Error(fmt::format("'{}' is not a sysfs tree: '{}' is not a directory", sysfs.string(),
                            (sysfs / "devices").string()),
                "give the sysfs root, normally /sys, or a recorded copy of it");
  Topology topology;
  // Both lists are optional: no rdma modules loaded means no class/infiniband.
  for (const auto& ib_dir : sorted_entries(sysfs / "class/infiniband"))
    topology.rdma_devices.push_back(read_rdma_device(ib_dir));
  for (const auto& link : sorted_entries(sysfs / "bus/pci/devices")) {
    const auto function_dir = fs::canonical(link, ec);
    if (ec) continue;
    if (auto gpu = read_gpu(function_dir)) {
      gpu->index = static_cast<int>(topology.gpus.size());
      topology.gpus.push_back(std::move(*gpu));
    }
  }
  // On a machine with one NUMA node every device is on it, whatever the
  // firmware left in numa_node.
  if (const auto nodes = numa_nodes(sysfs); nodes.size() == 1) {
    for (auto& d : topology.rdma_devices) d.numa_node = d.numa_node.value_or(nodes[0]);
    for (auto& g : topology.gpus) g.numa_node = g.numa_node.value_or(nodes[0]);
  }
  return topology;
}

const RdmaDevice* find_rdma_device(const Topology& topology, const std::string& name) {
  for (const auto& d : topology.rdma_devices)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace rdmabench
