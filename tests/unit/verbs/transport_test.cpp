// Fabric classification and GID choice on recorded port attributes: GID
// tables as rxe, mlx5 (RoCE), an InfiniBand HCA and siw (iWARP) report them.

#include "catch2_compat.hpp"

#include <optional>
#include <string>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/transport.hpp"
#include "sample_gids.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::kIpv4;
using rdmabench::test::kIpv6;
using rdmabench::test::MessageContains;

namespace {

const Gid kLinkLocal{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};
const Gid kIbGid{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x01, 0x23, 0x45};

PortAttributes ethernet_port(std::string device, std::vector<GidEntry> gids) {
  PortAttributes p;
  p.device = std::move(device);
  p.port = 1;
  p.link_layer = LinkLayer::ethernet;
  p.active_mtu_bytes = 1024;
  p.gids = std::move(gids);
  return p;
}

/// Our lab's rxe0: the link-local GID first, then the IPv4 one; rxe is RoCEv2 only.
PortAttributes rxe_port() {
  return ethernet_port("rxe0", {{0, kLinkLocal, GidType::roce_v2}, {1, kIpv4, GidType::roce_v2}});
}

/// A ConnectX port: each address twice, RoCEv1 then RoCEv2.
PortAttributes mlx5_port(bool with_ipv6) {
  auto p = ethernet_port("mlx5_0", {{0, kLinkLocal, GidType::roce_v1},
                                    {1, kLinkLocal, GidType::roce_v2},
                                    {2, kIpv4, GidType::roce_v1},
                                    {3, kIpv4, GidType::roce_v2}});
  if (with_ipv6) {
    p.gids.push_back({4, kIpv6, GidType::roce_v1});
    p.gids.push_back({5, kIpv6, GidType::roce_v2});
  }
  return p;
}

PortAttributes ib_port() {
  PortAttributes p;
  p.device = "mlx5_1";
  p.link_layer = LinkLayer::infiniband;
  p.lid = 7;
  p.gids = {{0, kIbGid, GidType::ib}, {1, kIpv6, GidType::ib}};
  return p;
}

/// siw: iWARP over an Ethernet device; its one GID is derived from the MAC.
PortAttributes siw_port() {
  auto p = ethernet_port("siw0", {{0, kLinkLocal, GidType::ib}});
  p.iwarp = true;
  return p;
}

}  // namespace

TEST_CASE("transport: GID helpers", "[transport]") {
  CHECK(format_gid(kIpv4) == "::ffff:10.0.2.15");
  CHECK(format_gid(kIpv6) == "2001:db8::15");
  CHECK(format_gid(kLinkLocal) == "fe80::5054:ff:fe12:3456");
  CHECK(is_ipv4_mapped(kIpv4));
  CHECK_FALSE(is_ipv4_mapped(kIpv6));
  CHECK_FALSE(is_ipv4_mapped(kLinkLocal));
  CHECK(is_link_local(kLinkLocal));
  CHECK(is_link_local(Gid{0xfe, 0xbf}));  // fe80::/10 ends at febf
  CHECK_FALSE(is_link_local(Gid{0xfe, 0xc0}));
  CHECK_FALSE(is_link_local(kIpv4));
  CHECK_FALSE(is_link_local(kIpv6));
}

TEST_CASE("transport: names", "[transport]") {
  CHECK(to_string(TransportKind::infiniband) == "InfiniBand");
  CHECK(to_string(TransportKind::roce_v1) == "RoCEv1");
  CHECK(to_string(TransportKind::roce_v2) == "RoCEv2");
  CHECK(to_string(TransportKind::iwarp) == "iWARP");
  CHECK(to_string(GidType::ib) == "IB");
  CHECK(to_string(GidType::roce_v1) == "RoCEv1");
  CHECK(to_string(GidType::roce_v2) == "RoCEv2");
}

TEST_CASE("transport: rxe picks the IPv4 RoCEv2 GID, not the link-local one", "[transport]") {
  const auto t = resolve_transport(rxe_port(), std::nullopt, AddressFamily::ipv4);
  CHECK(t.kind == TransportKind::roce_v2);
  CHECK(t.gid.index == 1);
  CHECK(t.gid.gid == kIpv4);
  CHECK(t.gid_reason == "RoCEv2 IPv4 GID");
  CHECK_FALSE(t.requires_rdma_cm);
}

TEST_CASE("transport: mlx5 picks the RoCEv2 GID of the address family", "[transport]") {
  SECTION("IPv4") {
    const auto t = resolve_transport(mlx5_port(true), std::nullopt, AddressFamily::ipv4);
    CHECK(t.kind == TransportKind::roce_v2);
    CHECK(t.gid.index == 3);
    CHECK(t.gid_reason == "RoCEv2 IPv4 GID");
  }
  SECTION("IPv6 with a global address") {
    const auto t = resolve_transport(mlx5_port(true), std::nullopt, AddressFamily::ipv6);
    CHECK(t.kind == TransportKind::roce_v2);
    CHECK(t.gid.index == 5);
    CHECK(t.gid.gid == kIpv6);
    CHECK(t.gid_reason == "RoCEv2 IPv6 GID");
  }
  SECTION("IPv6 without a global address falls back to any RoCEv2 GID, and says so") {
    const auto t = resolve_transport(mlx5_port(false), std::nullopt, AddressFamily::ipv6);
    CHECK(t.kind == TransportKind::roce_v2);
    CHECK(t.gid.type == GidType::roce_v2);
    CHECK(t.gid.index == 1);  // the first RoCEv2 entry
    CHECK(t.gid_reason == "RoCEv2 GID (no IPv6 RoCEv2 GID on this port)");
  }
}

TEST_CASE("transport: RoCE without RoCEv2 GIDs is RoCEv1", "[transport]") {
  const auto port = ethernet_port("mlx4_0", {{0, kLinkLocal, GidType::roce_v1},
                                             {1, kIpv4, GidType::roce_v1}});
  const auto t = resolve_transport(port, std::nullopt, AddressFamily::ipv4);
  CHECK(t.kind == TransportKind::roce_v1);
  CHECK(t.gid.type == GidType::roce_v1);
  CHECK(t.gid_reason == "RoCEv1 GID (the port has no RoCEv2 GID)");
  CHECK_FALSE(t.requires_rdma_cm);
}

TEST_CASE("transport: InfiniBand uses GID index 0", "[transport]") {
  for (auto family : {AddressFamily::ipv4, AddressFamily::ipv6}) {
    const auto t = resolve_transport(ib_port(), std::nullopt, family);
    CHECK(t.kind == TransportKind::infiniband);
    CHECK(t.gid.index == 0);
    CHECK(t.gid.gid == kIbGid);
    CHECK_THAT(t.gid_reason, Catch::Contains("InfiniBand"));
    CHECK_FALSE(t.requires_rdma_cm);
  }
}

TEST_CASE("transport: iWARP requires rdma_cm", "[transport]") {
  // Link layer Ethernet, but not RoCE: the iwarp flag decides.
  const auto t = resolve_transport(siw_port(), std::nullopt, AddressFamily::ipv4);
  CHECK(t.kind == TransportKind::iwarp);
  CHECK(t.requires_rdma_cm);
  CHECK(t.gid.index == 0);
  CHECK_THAT(t.gid_reason, Catch::Contains("iWARP"));
}

TEST_CASE("transport: -x picks that entry, and the entry's type decides RoCE v1 or v2",
          "[transport]") {
  const auto v1 = resolve_transport(mlx5_port(true), 2, AddressFamily::ipv4);
  CHECK(v1.gid.index == 2);
  CHECK(v1.gid.gid == kIpv4);
  CHECK(v1.kind == TransportKind::roce_v1);
  CHECK(v1.gid_reason == "given with -x");

  const auto link_local = resolve_transport(rxe_port(), 0, AddressFamily::ipv4);
  CHECK(link_local.gid.index == 0);
  CHECK(link_local.kind == TransportKind::roce_v2);

  const auto ib = resolve_transport(ib_port(), 1, AddressFamily::ipv4);
  CHECK(ib.gid.index == 1);
  CHECK(ib.kind == TransportKind::infiniband);
}

TEST_CASE("transport: -x matches the index field, not the position in the table",
          "[transport]") {
  // Tables hold valid entries only, so positions and indexes can differ.
  const auto port = ethernet_port("mlx5_0", {{0, kLinkLocal, GidType::roce_v2},
                                             {4, kIpv4, GidType::roce_v2}});
  CHECK(choose_gid(port, 4, AddressFamily::ipv4).gid == kIpv4);
  REQUIRE_THROWS_MATCHES(choose_gid(port, 1, AddressFamily::ipv4), Error,
                         MessageContains("GID index 1 does not exist"));
}

TEST_CASE("transport: a missing -x index lists the valid ones as ranges", "[transport]") {
  REQUIRE_THROWS_MATCHES(
      resolve_transport(rxe_port(), 2, AddressFamily::ipv4), Error,
      MessageContains("GID index 2 does not exist on rxe0 port 1; valid: 0-1 (omit -x"));
  REQUIRE_THROWS_MATCHES(resolve_transport(mlx5_port(false), 9, AddressFamily::ipv4), Error,
                         MessageContains("valid: 0-3 ("));

  auto gaps = ethernet_port("mlx5_0", {{4, kIpv4, GidType::roce_v2},  // unsorted on purpose
                                       {0, kLinkLocal, GidType::roce_v1},
                                       {1, kLinkLocal, GidType::roce_v2}});
  REQUIRE_THROWS_MATCHES(choose_gid(gaps, 3, AddressFamily::ipv4), Error,
                         MessageContains("valid: 0-1, 4 ("));

  gaps.gids.push_back({7, kIpv6, GidType::roce_v2});
  gaps.gids.push_back({2, kIpv6, GidType::roce_v1});
  gaps.gids.push_back({3, kIpv6, GidType::roce_v1});
  REQUIRE_THROWS_MATCHES(choose_gid(gaps, 5, AddressFamily::ipv4), Error,
                         MessageContains("valid: 0-4, 7 ("));

  const auto single = ethernet_port("rxe1", {{3, kIpv4, GidType::roce_v2}});
  REQUIRE_THROWS_MATCHES(choose_gid(single, 0, AddressFamily::ipv4), Error,
                         MessageContains("valid: 3 ("));
}

TEST_CASE("transport: the port number is printed as a number", "[transport]") {
  auto port = rxe_port();
  port.port = 2;  // a uint8_t: must not come out as the character \x02
  REQUIRE_THROWS_MATCHES(choose_gid(port, 9, AddressFamily::ipv4), Error,
                         MessageContains("on rxe0 port 2;"));
}

TEST_CASE("transport: an empty GID table is an error with a hint", "[transport]") {
  auto port = rxe_port();
  port.gids.clear();
  REQUIRE_THROWS_MATCHES(resolve_transport(port, std::nullopt, AddressFamily::ipv4), Error,
                         MessageContains("rxe0 port 1 has no valid GID") &&
                             MessageContains("IP address"));
  REQUIRE_THROWS_MATCHES(resolve_transport(port, 0, AddressFamily::ipv4), Error,
                         MessageContains("has no valid GID"));
}

TEST_CASE("transport: choose_gid without a reason pointer", "[transport]") {
  CHECK(choose_gid(rxe_port(), std::nullopt, AddressFamily::ipv4).index == 1);
  std::string reason = "untouched";
  CHECK(choose_gid(ib_port(), std::nullopt, AddressFamily::ipv4, &reason).index == 0);
  CHECK(reason != "untouched");
}

TEST_CASE("transport: classify", "[transport]") {
  const GidEntry v1{0, kIpv4, GidType::roce_v1};
  const GidEntry v2{1, kIpv4, GidType::roce_v2};
  CHECK(classify(rxe_port(), v1) == TransportKind::roce_v1);
  CHECK(classify(rxe_port(), v2) == TransportKind::roce_v2);
  CHECK(classify(ib_port(), v2) == TransportKind::infiniband);  // link layer wins
  CHECK(classify(siw_port(), v2) == TransportKind::iwarp);      // iwarp flag wins
}

TEST_CASE("transport: only iWARP lacks receiver-not-ready retry", "[transport]") {
  CHECK_FALSE(rdmabench::retries_receiver_not_ready(rdmabench::TransportKind::iwarp));
  for (auto kind : {rdmabench::TransportKind::infiniband, rdmabench::TransportKind::roce_v1,
                    rdmabench::TransportKind::roce_v2})
    CHECK(rdmabench::retries_receiver_not_ready(kind));
}

TEST_CASE("transport: only an iWARP idle read server spins by default", "[transport]") {
  CHECK(rdmabench::idle_server_spins_by_default(rdmabench::TransportKind::iwarp));
  for (auto kind : {rdmabench::TransportKind::infiniband, rdmabench::TransportKind::roce_v1,
                    rdmabench::TransportKind::roce_v2})
    CHECK_FALSE(rdmabench::idle_server_spins_by_default(kind));
}

TEST_CASE("transport: the receive depth default is perftest's, deeper where no RNR retry saves a sender",
          "[transport]") {
  using rdmabench::default_receive_depth;
  using rdmabench::TransportKind;
  CHECK(default_receive_depth(TransportKind::roce_v2, 32768, 4194303, 1) == 512);
  CHECK(default_receive_depth(TransportKind::infiniband, 32768, 4194303, 16) == 512);
  CHECK(default_receive_depth(TransportKind::iwarp, 32768, 4194303, 1) == 4096);
  CHECK(default_receive_depth(TransportKind::iwarp, 2048, 4194303, 1) == 2048);  // the queue's limit
  CHECK(default_receive_depth(TransportKind::iwarp, 32768, 65536, 32) == 2047);  // 32 QPs share the CQ
  CHECK(default_receive_depth(TransportKind::iwarp, 32768, 4097, 32) == 512);    // never below perftest's
}

TEST_CASE("transport: a GRH on RoCE always, on InfiniBand only with -x (routed subnets)",
          "[transport]") {
  CHECK(resolve_transport(rxe_port(), std::nullopt, AddressFamily::ipv4).global_route);
  CHECK(resolve_transport(mlx5_port(true), 2, AddressFamily::ipv4).global_route);
  CHECK_FALSE(resolve_transport(ib_port(), std::nullopt, AddressFamily::ipv4).global_route);
  const auto routed = resolve_transport(ib_port(), 1, AddressFamily::ipv4);
  CHECK(routed.global_route);
  CHECK(routed.gid.index == 1);
}
