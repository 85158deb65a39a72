#pragma once
/// @file
/// Where RDMA devices and GPUs sit on the PCIe tree, read from sysfs (no
/// CUDA, no vendor library), and how far apart each GPU-NIC pair is, in
/// nvidia-smi topo's words (PIX, PXB, PHB, NODE, SYS). Every function takes
/// the sysfs root so that tests run on recorded trees.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rdmabench/topology/pcie_link.hpp"

namespace rdmabench {

/// A PCI function's place in the tree, from its /sys/devices path.
struct PciLocation {
  std::string address;      ///< "0000:3b:00.0"
  std::string host_bridge;  ///< the root complex: "pci0000:3a"
  /// PCI functions from the root port down to this one (itself last).
  std::vector<std::string> path;
};

/// A port of an RDMA device, from its sysfs ports/N.
struct RdmaPort {
  int number = 1;
  std::string rate;        ///< as sysfs writes it: "100 Gb/sec (4X EDR)"; empty when unreadable
  std::string link_layer;  ///< "InfiniBand", "Ethernet"; empty when unreadable
};

/// An entry of /sys/class/infiniband.
struct RdmaDevice {
  std::string name;                 ///< "mlx5_0", "rxe0"
  std::optional<PciLocation> pci;   ///< empty: a soft device (rxe, siw) with no PCI parent
  std::optional<PcieLink> link;     ///< its PCI function's link; empty for a soft device
  std::vector<RdmaPort> ports;      ///< by number
  std::string netdev;               ///< its network interface, empty when none is found
  std::optional<std::uint32_t> netdev_mtu;  ///< that interface's MTU, where sysfs says
  std::optional<int> numa_node;     ///< empty: unknown (sysfs says -1, or virtual)
  bool is_virtual() const { return !pci.has_value(); }
};

/// A compute-capable GPU found by PCI class and vendor.
struct Gpu {
  int index = 0;            ///< order by PCI address; not CUDA's numbering
  std::string vendor;       ///< "NVIDIA", "AMD", "Intel"
  std::string vendor_id;    ///< "0x10de"
  std::string device_id;    ///< "0x2330"
  PciLocation pci;
  std::optional<PcieLink> link;
  std::optional<int> numa_node;
};

struct Topology {
  std::vector<RdmaDevice> rdma_devices;  ///< sorted by name
  std::vector<Gpu> gpus;                 ///< sorted by PCI address
};

/// How a GPU reaches a NIC, as nvidia-smi topo -m names it.
enum class PciRelationship {
  pix,   ///< both below one PCIe switch: at most one bridge between them
  pxb,   ///< through several switches, without crossing the host bridge
  phb,   ///< through the host bridge of one root complex
  node,  ///< between root complexes of one NUMA node
  sys,   ///< across NUMA nodes (the socket interconnect), or not provably within one
};

/// "PIX", "PXB", "PHB", "NODE", "SYS".
std::string to_string(PciRelationship relationship);

/// One line explaining the code, as nvidia-smi's legend does.
std::string describe(PciRelationship relationship);

/// Reads `sysfs` (normally /sys). A machine without RDMA devices or GPUs
/// gives empty lists. Throws Error when `sysfs` is not a sysfs tree.
Topology scan_topology(const std::filesystem::path& sysfs = "/sys");

/// The location of the PCI function whose resolved sysfs directory is
/// `device_dir` (a path under <sysfs>/devices). Empty when it is not below a
/// PCI host bridge (a virtual device).
std::optional<PciLocation> pci_location(const std::filesystem::path& device_dir);

/// The relationship of two PCI functions on nodes `node_a` and `node_b`.
PciRelationship classify(const PciLocation& a, std::optional<int> node_a, const PciLocation& b,
                         std::optional<int> node_b);

/// classify() for a GPU and an RDMA device; empty for a soft device, which
/// has no PCIe path to compare.
std::optional<PciRelationship> relationship(const Gpu& gpu, const RdmaDevice& nic);

/// The RDMA device called `name`, or empty.
const RdmaDevice* find_rdma_device(const Topology& topology, const std::string& name);

/// The whole topology and the GPU x NIC matrix as JSON (for scripts).
nlohmann::json to_json(const Topology& topology);

/// Devices, GPUs and the GPU x NIC matrix as console tables.
void print_topology(std::ostream& out, const Topology& topology);

}  // namespace rdmabench
