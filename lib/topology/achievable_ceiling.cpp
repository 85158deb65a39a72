// The achievable ceiling: what a port and a PCIe link can carry of payload.
// Every byte counted here is listed, with its source, in docs/methodology.md
// ("The achievable ceiling"); change both together.
#include "rdmabench/topology/achievable_ceiling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace rdmabench {

namespace {

// Per TLP with a 64-bit address (a 4 DW header), the TLP a NIC writes
// received data with:
//   PCIe 1.0-2.0: STP 1 + sequence number 2 + header 16 + LCRC 4 + END 1 = 24
//   PCIe 3.0-5.0: STP token 4 (it carries the sequence number) + header 16 + LCRC 4 = 24
//   PCIe 6.0 (FLIT mode): header 16; framing, sequence and CRC live in the
//   flit, counted in its 236/256 efficiency. ECRC (optional) and DLLPs
//   (acks, flow control) are not counted.
constexpr std::uint32_t kTlpOverheadBytes = 24;
constexpr std::uint32_t kFlitTlpOverheadBytes = 16;

constexpr PcieEncoding kPcieEncodings[] = {
    {1, 2.5, 8.0 / 10.0, "8b/10b", kTlpOverheadBytes},
    {2, 5.0, 8.0 / 10.0, "8b/10b", kTlpOverheadBytes},
    {3, 8.0, 128.0 / 130.0, "128b/130b", kTlpOverheadBytes},
    {4, 16.0, 128.0 / 130.0, "128b/130b", kTlpOverheadBytes},
    {5, 32.0, 128.0 / 130.0, "128b/130b", kTlpOverheadBytes},
    // PAM4, 1b/1b; of each 256-byte flit, 236 bytes carry TLPs (the rest:
    // 6 DLLP, 8 CRC, 6 FEC).
    {6, 64.0, 236.0 / 256.0, "FLIT 236/256", kFlitTlpOverheadBytes},
};

// Ethernet's share of every frame: preamble and SFD 8, header 14 (no VLAN
// tag), FCS 4, the inter-frame gap 12.
constexpr std::uint32_t kEthernetFramingBytes = 8 + 14 + 4 + 12;
constexpr std::uint32_t kIpv4HeaderBytes = 20;
constexpr std::uint32_t kIpv6HeaderBytes = 40;  // also the size of IB's GRH
constexpr std::uint32_t kUdpHeaderBytes = 8;
constexpr std::uint32_t kBthBytes = 12;
constexpr std::uint32_t kIcrcBytes = 4;
constexpr std::uint32_t kLrhBytes = 8;
constexpr std::uint32_t kVcrcBytes = 2;
// iWARP: TCP 20 (no options), MPA length 2 and CRC 4, DDP/RDMAP tagged
// header 14 (an RDMA Write's segments).
constexpr std::uint32_t kIwarpTransportBytes = 20 + 2 + 4 + 14;

/// Whether sysfs's rate for this InfiniBand speed is a signalling rate, and
/// the code that turns it into data: the kernel reports 4X QDR as 40 Gb/s
/// (10 Gbaud lanes, 8b/10b) and 4X FDR as 56 (14.0625 Gbaud, 64b/66b), but
/// FDR10, EDR and later as their data rates.
const char* infiniband_encoding(const std::string& speed, double& efficiency) {
  if (speed == "SDR" || speed == "DDR" || speed == "QDR") {
    efficiency = 8.0 / 10.0;
    return "8b/10b";
  }
  if (speed == "FDR") {
    efficiency = 64.0 / 66.0;
    return "64b/66b";
  }
  efficiency = 1.0;
  return "";
}

bool is_infiniband(PacketHeaders headers) {
  return headers == PacketHeaders::infiniband || headers == PacketHeaders::infiniband_global;
}

}  // namespace

std::optional<PcieEncoding> pcie_encoding(double gts) {
  for (const auto& e : kPcieEncodings)
    if (std::abs(gts - e.gts) < 0.01) return e;
  return std::nullopt;
}

std::optional<double> pcie_encoded_gbps(double gts, int lanes) {
  const auto encoding = pcie_encoding(gts);
  if (!encoding || lanes <= 0) return std::nullopt;
  return encoding->gts * lanes * encoding->efficiency;
}

std::optional<PcieCeiling> pcie_ceiling(const PcieLink& link) {
  if (!link.speed_gts || !link.width) return std::nullopt;
  const auto encoding = pcie_encoding(*link.speed_gts);
  const auto encoded = pcie_encoded_gbps(*link.speed_gts, *link.width);
  if (!encoding || !encoded) return std::nullopt;
  PcieCeiling c;
  c.generation = encoding->generation;
  c.lanes = *link.width;
  c.encoding = encoding->name;
  c.encoded_gbps = *encoded;
  c.payload_assumed = !link.max_payload_bytes;
  c.tlp_payload_bytes = link.max_payload_bytes.value_or(kAssumedMaxPayloadBytes);
  c.tlp_overhead_bytes = encoding->tlp_overhead_bytes;
  c.gbps = c.encoded_gbps * c.tlp_payload_bytes / (c.tlp_payload_bytes + c.tlp_overhead_bytes);
  return c;
}

std::uint32_t packet_overhead_bytes(PacketHeaders headers) {
  const std::uint32_t roce_transport = kBthBytes + kIcrcBytes;
  switch (headers) {
    case PacketHeaders::infiniband: return kLrhBytes + kBthBytes + kIcrcBytes + kVcrcBytes;
    case PacketHeaders::infiniband_global: return kLrhBytes + kIpv6HeaderBytes + kBthBytes + kIcrcBytes + kVcrcBytes;
    case PacketHeaders::roce_v1: return kEthernetFramingBytes + kIpv6HeaderBytes + roce_transport;
    case PacketHeaders::roce_v2_ipv4: return kEthernetFramingBytes + kIpv4HeaderBytes + kUdpHeaderBytes + roce_transport;
    case PacketHeaders::roce_v2_ipv6: return kEthernetFramingBytes + kIpv6HeaderBytes + kUdpHeaderBytes + roce_transport;
    case PacketHeaders::iwarp_ipv4: return kEthernetFramingBytes + kIpv4HeaderBytes + kIwarpTransportBytes;
    case PacketHeaders::iwarp_ipv6: return kEthernetFramingBytes + kIpv6HeaderBytes + kIwarpTransportBytes;
  }
  return 0;
}

std::string to_string(PacketHeaders headers) {
  switch (headers) {
    case PacketHeaders::infiniband: return "InfiniBand";
    case PacketHeaders::infiniband_global: return "InfiniBand (with GRH)";
    case PacketHeaders::roce_v1: return "RoCEv1";
    case PacketHeaders::roce_v2_ipv4: return "RoCEv2 (IPv4)";
    case PacketHeaders::roce_v2_ipv6: return "RoCEv2 (IPv6)";
    case PacketHeaders::iwarp_ipv4: return "iWARP (IPv4)";
    case PacketHeaders::iwarp_ipv6: return "iWARP (IPv6)";
  }
  return "?";
}

PortCeiling port_ceiling(double rate_gbps, const std::string& speed, PacketHeaders headers,
                         std::uint32_t mtu_bytes, bool mtu_assumed) {
  PortCeiling c;
  c.rate_gbps = rate_gbps;
  double efficiency = 1.0;
  // An Ethernet port's rate is the netdev's speed, a data rate, whatever
  // IB speed name the kernel maps it to (rxe's 10 Gb/s reads "1X QDR").
  if (is_infiniband(headers)) c.encoding = infiniband_encoding(speed, efficiency);
  c.data_gbps = rate_gbps * efficiency;
  c.headers = headers;
  c.mtu_bytes = mtu_bytes;
  c.mtu_assumed = mtu_assumed;
  c.overhead_bytes = packet_overhead_bytes(headers);
  c.gbps = mtu_bytes ? c.data_gbps * mtu_bytes / (mtu_bytes + c.overhead_bytes) : 0;
  return c;
}

std::optional<AchievableCeiling> achievable_ceiling(std::optional<PortCeiling> port,
                                                    std::optional<PcieCeiling> device_pcie,
                                                    std::optional<PcieCeiling> gpu_pcie) {
  AchievableCeiling c;
  bool known = false;
  auto consider = [&](double gbps, CeilingLimit limit) {
    if (gbps <= 0) return;
    if (!known || gbps < c.gbps) {
      c.gbps = gbps;
      c.limited_by = limit;
    }
    known = true;
  };
  if (port) consider(port->gbps, CeilingLimit::port);
  if (device_pcie) consider(device_pcie->gbps, CeilingLimit::device_pcie);
  if (gpu_pcie) consider(gpu_pcie->gbps, CeilingLimit::gpu_pcie);
  if (!known) return std::nullopt;
  c.port = std::move(port);
  c.device_pcie = std::move(device_pcie);
  c.gpu_pcie = std::move(gpu_pcie);
  return c;
}

std::string limit_text(const AchievableCeiling& c) {
  switch (c.limited_by) {
    case CeilingLimit::port: return "the port";
    case CeilingLimit::device_pcie: return fmt::format("PCIe Gen{} x{}", c.device_pcie->generation, c.device_pcie->lanes);
    case CeilingLimit::gpu_pcie: return fmt::format("the GPU's PCIe Gen{} x{}", c.gpu_pcie->generation, c.gpu_pcie->lanes);
  }
  return "?";
}

std::string describe(const PortCeiling& p) {
  const std::string encoding =
      p.encoding.empty() ? "" : fmt::format(" ({:.1f} after {})", p.data_gbps, p.encoding);
  return fmt::format("port {:g} Gb/s{} less {} headers at MTU {}{}: {:.1f} Gb/s", p.rate_gbps, encoding,
                     to_string(p.headers), p.mtu_bytes, p.mtu_assumed ? " (assumed)" : "", p.gbps);
}

std::string describe(const PcieCeiling& p) {
  return fmt::format("PCIe Gen{} x{} {:.1f} Gb/s after {} less TLP headers at MPS {}{}: {:.1f} Gb/s",
                     p.generation, p.lanes, p.encoded_gbps, p.encoding, p.tlp_payload_bytes,
                     p.payload_assumed ? " (assumed, not readable)" : "", p.gbps);
}

std::string describe(const AchievableCeiling& c) {
  std::vector<std::string> parts;
  if (c.port) parts.push_back(describe(*c.port));
  if (c.device_pcie) parts.push_back(describe(*c.device_pcie));
  if (c.gpu_pcie) parts.push_back("GPU " + describe(*c.gpu_pcie));
  std::string joined;
  for (const auto& part : parts) joined += (joined.empty() ? "" : "; ") + part;
  return fmt::format("{:.1f} Gb/s, limited by {} ({})", c.gbps, limit_text(c), joined);
}

double percent_of(const AchievableCeiling& c, double payload_gbps) {
  return c.gbps > 0 ? 100.0 * payload_gbps / c.gbps : 0;
}

}  // namespace rdmabench
