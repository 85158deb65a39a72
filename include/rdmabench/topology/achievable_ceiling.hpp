#pragma once
/// @file
/// The most payload a path can carry: the lower of what the port and the
/// PCIe link(s) can carry, each less its protocol overhead. The arithmetic,
/// the bytes counted and a worked example: docs/methodology.md, "The
/// achievable ceiling". All rates are 10^9 bits of payload per second.

#include <cstdint>
#include <optional>
#include <string>

#include "rdmabench/topology/pcie_link.hpp"

namespace rdmabench {

/// The per-generation line code of PCIe and the bytes each TLP costs.
struct PcieEncoding {
  int generation = 0;
  double gts = 0;            ///< per lane
  double efficiency = 0;     ///< data bits per transferred bit
  const char* name = "";     ///< "8b/10b", "128b/130b", "FLIT 236/256"
  std::uint32_t tlp_overhead_bytes = 0;
};

/// The encoding of a per-lane rate of PCIe 1.0 to 6.0; empty for another.
std::optional<PcieEncoding> pcie_encoding(double gts);

/// Lanes x rate x encoding: the link's data rate, before TLP overhead.
/// Empty for a rate no generation has.
std::optional<double> pcie_encoded_gbps(double gts, int lanes);

/// TLP payload assumed where MaxPayload cannot be read: the commonest
/// setting on servers.
constexpr std::uint32_t kAssumedMaxPayloadBytes = 256;

struct PcieCeiling {
  int generation = 0;
  int lanes = 0;
  std::string encoding;
  double encoded_gbps = 0;          ///< after line encoding
  std::uint32_t tlp_payload_bytes = 0;
  bool payload_assumed = false;     ///< MaxPayload was not readable
  std::uint32_t tlp_overhead_bytes = 0;
  double gbps = 0;                  ///< encoded x payload / (payload + overhead)
};

/// The ceiling of a link as it trained now; empty when its current speed
/// or width is unknown or no PCIe generation's.
std::optional<PcieCeiling> pcie_ceiling(const PcieLink& link);

/// The headers each packet carries on the wire, by transport.
enum class PacketHeaders {
  infiniband,         ///< LRH, BTH, ICRC, VCRC
  infiniband_global,  ///< the same with a GRH (routed, -x on InfiniBand)
  roce_v1,            ///< Ethernet framing, GRH, BTH, ICRC
  roce_v2_ipv4,       ///< Ethernet framing, IPv4, UDP, BTH, ICRC
  roce_v2_ipv6,       ///< Ethernet framing, IPv6, UDP, BTH, ICRC
  iwarp_ipv4,         ///< Ethernet framing, IPv4, TCP, MPA, DDP/RDMAP
  iwarp_ipv6,
};

/// Bytes on the wire per packet besides its payload.
std::uint32_t packet_overhead_bytes(PacketHeaders headers);

/// "RoCEv2 (IPv4)", "InfiniBand", ...
std::string to_string(PacketHeaders headers);

struct PortCeiling {
  double rate_gbps = 0;         ///< as sysfs's `rate` says
  std::string encoding;         ///< empty where `rate` is already the data rate
  double data_gbps = 0;         ///< after that encoding
  PacketHeaders headers = PacketHeaders::roce_v2_ipv4;
  std::uint32_t mtu_bytes = 0;  ///< payload per packet
  bool mtu_assumed = false;     ///< not the run's: rdma_topo has no queue pair
  std::uint32_t overhead_bytes = 0;
  double gbps = 0;              ///< data x mtu / (mtu + overhead)
};

/// A port of `rate_gbps` with sysfs's speed name (`speed`: "QDR", "EDR"...;
/// see port_speed_name), carrying `mtu_bytes` per packet. On InfiniBand,
/// SDR, DDR and QDR rates are signalling rates (8b/10b) and FDR's is too
/// (64b/66b); later ones, and every Ethernet rate, are data rates.
PortCeiling port_ceiling(double rate_gbps, const std::string& speed, PacketHeaders headers,
                         std::uint32_t mtu_bytes, bool mtu_assumed = false);

/// What limits a path.
enum class CeilingLimit { port, device_pcie, gpu_pcie };

struct AchievableCeiling {
  std::optional<PortCeiling> port;
  std::optional<PcieCeiling> device_pcie;  ///< the RDMA device's link
  std::optional<PcieCeiling> gpu_pcie;     ///< with GPU memory: the GPU's link
  double gbps = 0;
  CeilingLimit limited_by = CeilingLimit::port;
};

/// The lower of the known figures; empty when none is known.
std::optional<AchievableCeiling> achievable_ceiling(std::optional<PortCeiling> port,
                                                    std::optional<PcieCeiling> device_pcie,
                                                    std::optional<PcieCeiling> gpu_pcie = std::nullopt);

/// "the port", "PCIe Gen4 x8", "the GPU's PCIe Gen5 x16".
std::string limit_text(const AchievableCeiling& ceiling);

/// The port's arithmetic: "port 100 Gb/s less RoCEv2 (IPv4) headers at MTU 4096: 98.04 Gb/s".
std::string describe(const PortCeiling& port);

/// The link's: "PCIe Gen4 x8 126.0 Gb/s less TLP headers at MPS 256: 115.2 Gb/s".
std::string describe(const PcieCeiling& pcie);

/// One line: "115.2 Gb/s, limited by PCIe Gen4 x8 (port ...; PCIe ...)".
std::string describe(const AchievableCeiling& ceiling);

/// `payload_gbps` as a percentage of the ceiling (0 when it is 0).
double percent_of(const AchievableCeiling& ceiling, double payload_gbps);

}  // namespace rdmabench
