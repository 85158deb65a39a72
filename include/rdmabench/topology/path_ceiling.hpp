#pragma once
/// @file
/// The achievable ceiling of a real path: an RDMA device's port and PCIe
/// link (and, for GPU memory, the GPU's link) as the topology found them,
/// with the headers and MTU a run uses, or, for rdma_topo, the ones a run
/// would most likely use.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/topology/achievable_ceiling.hpp"
#include "rdmabench/topology/topology.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench {

/// What the header and the JSON context say about the path's ceiling.
struct PathCeiling {
  bool device_found = false;             ///< the device was in sysfs: the rest was looked for
  std::string device_address;            ///< the RDMA device's PCI address; empty for a soft device
  std::optional<PcieLink> device_link;   ///< empty: a soft device, or sysfs has no link
  std::string gpu_address;               ///< with GPU memory
  std::optional<PcieLink> gpu_link;
  bool soft_device = false;              ///< no PCI function: the port alone limits
  std::string port_rate;                 ///< sysfs's text; empty when unreadable
  std::optional<AchievableCeiling> ceiling;  ///< empty when neither side is known
  std::vector<std::string> warnings;     ///< links trained below their maximum
};

/// The headers a run's packets carry: by transport, with a GRH where it
/// routes globally; IPv4 or IPv6 by the GID, except on iWARP, whose GID is
/// its MAC and tells no family: there `ip_family` (AF_INET or AF_INET6,
/// the family of the address rdma_cm connected) decides, and IPv4 without it.
PacketHeaders packet_headers(const Transport& transport, std::optional<int> ip_family = std::nullopt);

/// A run's path: port `port` of `device` carrying `mtu_bytes` per packet
/// with `headers`; `gpu_address` the PCI address of the GPU whose memory it
/// uses, empty for host memory. A device the topology lacks leaves the
/// ceiling empty.
PathCeiling path_ceiling(const Topology& topology, const std::string& device, int port,
                         PacketHeaders headers, std::uint32_t mtu_bytes, const std::string& gpu_address = "");

/// rdma_topo's view of one port, without a queue pair: InfiniBand without
/// a GRH, Ethernet as RoCEv2 over IPv4, at the largest MTU the interface
/// allows (4096 where its MTU is unknown), marked as assumed.
PathCeiling port_path_ceiling(const RdmaDevice& device, const RdmaPort& port);

/// "the port's alone (soft device: no PCIe link)" and the like: one line
/// for the header, or the reason none is known.
std::string describe(const PathCeiling& path);

/// For scripts: each figure of the arithmetic, the links, the warnings.
nlohmann::json to_json(const PathCeiling& path);
nlohmann::json to_json(const PcieLink& link);

}  // namespace rdmabench
