// The achievable ceiling against published figures: PCIe's data rate per
// generation and width (PCI-SIG's, as the PCI Express article tabulates
// them), then each protocol's overhead step on its own.
#include "catch2_compat.hpp"

#include <fmt/format.h>

#include "rdmabench/topology/achievable_ceiling.hpp"
#include "rdmabench/topology/port_rate.hpp"

using namespace rdmabench;

namespace {

struct PublishedRate {
  double gts;
  int lanes;
  double gigabytes_per_s;  ///< after encoding, rounded to three decimals as published
};

// PCIe 3.0 to 5.0, x1 to x16: the throughput table of the PCI Express
// specification summaries (GB/s, one direction).
constexpr PublishedRate kPublished[] = {
    {8.0, 1, 0.985},   {8.0, 2, 1.969},   {8.0, 4, 3.938},   {8.0, 8, 7.877},   {8.0, 16, 15.754},
    {16.0, 1, 1.969},  {16.0, 2, 3.938},  {16.0, 4, 7.877},  {16.0, 8, 15.754}, {16.0, 16, 31.508},
    {32.0, 1, 3.938},  {32.0, 2, 7.877},  {32.0, 4, 15.754}, {32.0, 8, 31.508}, {32.0, 16, 63.015},
};

PcieLink trained(double gts, int lanes, std::optional<std::uint32_t> payload) {
  PcieLink link;
  link.speed_gts = link.max_speed_gts = gts;
  link.width = link.max_width = lanes;
  link.max_payload_bytes = payload;
  return link;
}

}  // namespace

TEST_CASE("ceiling: PCIe Gen3 to Gen5, x1 to x16, after encoding, as published", "[topology][ceiling]") {
  for (const auto& p : kPublished) {
    INFO("PCIe " << p.gts << " GT/s x" << p.lanes);
    const auto gbps = pcie_encoded_gbps(p.gts, p.lanes);
    REQUIRE(gbps.has_value());
    CHECK(*gbps / 8 == Approx(p.gigabytes_per_s).margin(0.0006));
  }
}

TEST_CASE("ceiling: PCIe headline figures by generation", "[topology][ceiling]") {
  CHECK(*pcie_encoded_gbps(2.5, 1) == Approx(2.0));    // Gen1 x1: 8b/10b
  CHECK(*pcie_encoded_gbps(5.0, 8) == Approx(32.0));   // Gen2 x8
  CHECK(*pcie_encoded_gbps(8.0, 16) == Approx(126.0).margin(0.05));
  CHECK(*pcie_encoded_gbps(16.0, 16) == Approx(252.1).margin(0.05));
  CHECK(*pcie_encoded_gbps(32.0, 16) == Approx(504.1).margin(0.05));
  // Gen6: FLIT mode, 236 of every 256 bytes carry TLPs.
  CHECK(*pcie_encoded_gbps(64.0, 16) == Approx(944.0));
  CHECK_FALSE(pcie_encoded_gbps(12.0, 16));  // no generation runs at 12 GT/s
  CHECK_FALSE(pcie_encoded_gbps(16.0, 0));
}

TEST_CASE("ceiling: TLP overhead at MaxPayload, 256 B assumed when unreadable", "[topology][ceiling]") {
  // 24 bytes per TLP: framing and sequence number 4, 4 DW header 16, LCRC 4.
  const auto at256 = pcie_ceiling(trained(16.0, 16, 256));
  REQUIRE(at256.has_value());
  CHECK(at256->generation == 4);
  CHECK(at256->lanes == 16);
  CHECK(at256->tlp_overhead_bytes == 24);
  CHECK_FALSE(at256->payload_assumed);
  CHECK(at256->gbps == Approx(at256->encoded_gbps * 256 / 280));
  CHECK(at256->gbps == Approx(230.45).margin(0.01));
  const auto at128 = pcie_ceiling(trained(16.0, 16, 128));
  CHECK(at128->gbps == Approx(at128->encoded_gbps * 128 / 152));
  const auto unreadable = pcie_ceiling(trained(16.0, 16, std::nullopt));
  CHECK(unreadable->payload_assumed);
  CHECK(unreadable->tlp_payload_bytes == kAssumedMaxPayloadBytes);
  CHECK(unreadable->gbps == Approx(at256->gbps));
  // Gen1 frames a TLP with STP, sequence number and END: 24 bytes as well.
  CHECK(pcie_ceiling(trained(2.5, 1, 128))->gbps == Approx(2.0 * 128 / 152));
  // Gen6's flit carries framing and CRC: only the header is per TLP.
  CHECK(pcie_ceiling(trained(64.0, 16, 256))->gbps == Approx(944.0 * 256 / 272));
}

TEST_CASE("ceiling: a link of unknown speed or width has none", "[topology][ceiling]") {
  PcieLink link = trained(16.0, 16, 256);
  link.speed_gts.reset();
  CHECK_FALSE(pcie_ceiling(link));
  link = trained(16.0, 16, 256);
  link.width.reset();
  CHECK_FALSE(pcie_ceiling(link));
}

TEST_CASE("ceiling: packet overhead per transport, byte by byte", "[topology][ceiling]") {
  // Ethernet framing: preamble+SFD 8, header 14, FCS 4, gap 12 = 38.
  CHECK(packet_overhead_bytes(PacketHeaders::roce_v2_ipv4) == 38 + 20 + 8 + 12 + 4);
  CHECK(packet_overhead_bytes(PacketHeaders::roce_v2_ipv6) == 38 + 40 + 8 + 12 + 4);
  CHECK(packet_overhead_bytes(PacketHeaders::roce_v1) == 38 + 40 + 12 + 4);
  // LRH 8, BTH 12, ICRC 4, VCRC 2; a GRH adds 40.
  CHECK(packet_overhead_bytes(PacketHeaders::infiniband) == 8 + 12 + 4 + 2);
  CHECK(packet_overhead_bytes(PacketHeaders::infiniband_global) == 8 + 40 + 12 + 4 + 2);
  CHECK(packet_overhead_bytes(PacketHeaders::iwarp_ipv4) == 38 + 20 + 20 + 2 + 4 + 14);
}

TEST_CASE("ceiling: the port less its headers at the MTU", "[topology][ceiling]") {
  const auto roce = port_ceiling(100, "EDR", PacketHeaders::roce_v2_ipv4, 4096);
  CHECK(roce.encoding.empty());
  CHECK(roce.data_gbps == 100);
  CHECK(roce.gbps == Approx(100.0 * 4096 / (4096 + 82)));
  CHECK(port_ceiling(100, "EDR", PacketHeaders::roce_v2_ipv6, 4096).gbps == Approx(97.57).margin(0.01));
  // An Ethernet rate is a data rate, whatever IB speed the kernel names it:
  // rxe on a 10 Gb/s interface reads "10 Gb/sec (1X QDR)".
  CHECK(port_ceiling(10, "QDR", PacketHeaders::roce_v2_ipv4, 1024).data_gbps == 10);
  // InfiniBand QDR's 40 is signalling: 8b/10b leaves 32.
  const auto qdr = port_ceiling(40, "QDR", PacketHeaders::infiniband, 2048);
  CHECK(qdr.encoding == "8b/10b");
  CHECK(qdr.data_gbps == Approx(32.0));
  CHECK(qdr.gbps == Approx(32.0 * 2048 / 2074));
  CHECK(port_ceiling(20, "DDR", PacketHeaders::infiniband, 2048).data_gbps == Approx(16.0));
  CHECK(port_ceiling(56, "FDR", PacketHeaders::infiniband, 4096).data_gbps == Approx(56.0 * 64 / 66));
  // FDR10, EDR, HDR, NDR: the kernel's figure is the data rate already.
  CHECK(port_ceiling(40, "FDR10", PacketHeaders::infiniband, 4096).data_gbps == 40);
  CHECK(port_ceiling(400, "NDR", PacketHeaders::infiniband, 4096).gbps == Approx(400.0 * 4096 / 4122));
}

TEST_CASE("ceiling: the lower figure limits, and says which", "[topology][ceiling]") {
  const auto port = port_ceiling(400, "NDR", PacketHeaders::infiniband, 4096);
  const auto narrow = pcie_ceiling(trained(16.0, 8, 256));
  const auto c = achievable_ceiling(port, narrow);
  REQUIRE(c.has_value());
  CHECK(c->limited_by == CeilingLimit::device_pcie);
  CHECK(c->gbps == narrow->gbps);
  CHECK(limit_text(*c) == "PCIe Gen4 x8");
  CHECK_THAT(describe(*c), Catch::StartsWith(fmt::format("{:.1f} Gb/s, limited by PCIe Gen4 x8 (port 400 Gb/s",
                                                         narrow->gbps)));
  const auto port_bound = achievable_ceiling(port_ceiling(100, "EDR", PacketHeaders::infiniband, 4096),
                                             pcie_ceiling(trained(16.0, 16, 256)));
  CHECK(port_bound->limited_by == CeilingLimit::port);
  CHECK(limit_text(*port_bound) == "the port");
  // GPU memory: the GPU's link counts too.
  const auto gpu_bound = achievable_ceiling(port, pcie_ceiling(trained(32.0, 16, 256)),
                                            pcie_ceiling(trained(16.0, 4, std::nullopt)));
  CHECK(gpu_bound->limited_by == CeilingLimit::gpu_pcie);
  CHECK(limit_text(*gpu_bound) == "the GPU's PCIe Gen4 x4");
  // A soft device: the port alone; nothing known: no ceiling.
  CHECK(achievable_ceiling(port, std::nullopt)->limited_by == CeilingLimit::port);
  CHECK_FALSE(achievable_ceiling(std::nullopt, std::nullopt));
  CHECK(percent_of(*c, c->gbps / 2) == Approx(50.0));
}

TEST_CASE("ceiling: port rate and speed from sysfs text", "[topology][ceiling]") {
  CHECK(parse_port_rate("100 Gb/sec (4X EDR)") == 100.0);
  CHECK(parse_port_rate("2.5 Gb/sec (1X SDR)") == 2.5);
  CHECK_FALSE(parse_port_rate("unknown"));
  CHECK(port_speed_name("100 Gb/sec (4X EDR)") == "EDR");
  CHECK(port_speed_name("40 Gb/sec (4X FDR10)") == "FDR10");
  CHECK(port_speed_name("25 Gb/sec") == "");
}

TEST_CASE("ceiling: the RoCE MTU an interface MTU allows, as the kernel picks it", "[topology][ceiling]") {
  CHECK(roce_mtu_for_netdev(9000) == 4096u);
  CHECK(roce_mtu_for_netdev(4200) == 4096u);
  CHECK(roce_mtu_for_netdev(4191) == 2048u);  // 4096 + 96 bytes of headroom do not fit
  CHECK(roce_mtu_for_netdev(1500) == 1024u);
  CHECK_FALSE(roce_mtu_for_netdev(300));
}
