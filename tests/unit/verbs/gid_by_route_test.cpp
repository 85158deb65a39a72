// The GID by the route's source address (lib/verbs/gid_choice.cpp), on
// recorded GID tables: a rail whose netdev holds two addresses of one
// subnet, as multi-rail hosts have them, and the route's source that is,
// or is not, on the port; --source-ip, which must be; -x beside them.

#include "catch2_compat.hpp"

#include <optional>
#include <string>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/transport.hpp"
#include "sample_gids.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::kIpv6;
using rdmabench::test::MessageContains;

namespace {

Gid mapped_v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
}

const Gid kRailLinkLocal{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};

/// swrxe1 of the lab case: its veth holds 10.0.7.1, then 10.0.7.3; rxe
/// lists each address once as RoCEv1 and once as RoCEv2 (as mlx5 does).
PortAttributes two_address_rail() {
  PortAttributes p;
  p.device = "swrxe1";
  p.port = 1;
  p.link_layer = LinkLayer::ethernet;
  p.active_mtu_bytes = 1024;
  p.gids = {{0, kRailLinkLocal, GidType::roce_v1}, {1, kRailLinkLocal, GidType::roce_v2},
            {2, mapped_v4(10, 0, 7, 1), GidType::roce_v1}, {3, mapped_v4(10, 0, 7, 1), GidType::roce_v2},
            {4, mapped_v4(10, 0, 7, 3), GidType::roce_v1}, {5, mapped_v4(10, 0, 7, 3), GidType::roce_v2},
            {6, kIpv6, GidType::roce_v1}, {7, kIpv6, GidType::roce_v2}};
  return p;
}

const std::string kRoute = "the source of the kernel's route to 10.0.7.3, an address of swh1";

SourceAddress route_source(const std::string& address, bool required = false) {
  auto source = source_address(address, required ? "given with --source-ip" : kRoute, required);
  REQUIRE(source);
  return *source;
}

}  // namespace

TEST_CASE("GID by route: an address as a GID, IPv4 mapped, IPv6 as it is", "[transport]") {
  CHECK(gid_of_address("10.0.7.3") == mapped_v4(10, 0, 7, 3));
  CHECK(gid_of_address("2001:db8::15") == kIpv6);
  CHECK_FALSE(gid_of_address("rail1-host"));
  CHECK_FALSE(gid_of_address(""));
  CHECK_FALSE(source_address("10.0.7", "anything"));
}

TEST_CASE("GID by route: the route's source address chooses, not the first GID of the family", "[transport]") {
  const auto port = two_address_rail();
  // The rule by family alone takes the rail's first address.
  CHECK(choose_gid(port, std::nullopt, AddressFamily::ipv4, std::nullopt).entry.index == 3);
  const auto choice = choose_gid(port, std::nullopt, AddressFamily::ipv4, route_source("10.0.7.3"));
  CHECK(choice.entry.index == 5);
  CHECK(choice.entry.type == GidType::roce_v2);
  CHECK(choice.reason == "RoCEv2 GID of 10.0.7.3, " + kRoute);
  CHECK(choice.warning.empty());
  // The source's family, whatever the server's address suggested.
  const auto six = choose_gid(port, std::nullopt, AddressFamily::ipv4, route_source("2001:db8::15"));
  CHECK(six.entry.index == 7);
  const auto transport = resolve_transport(port, std::nullopt, AddressFamily::ipv4, route_source("10.0.7.3"));
  CHECK(transport.gid.index == 5);
  CHECK(transport.gid_reason == choice.reason);
  CHECK(transport.kind == TransportKind::roce_v2);
}

TEST_CASE("GID by route: a source off this port falls back to the rule by family, and warns", "[transport]") {
  // -d named swrxe1, but the route to the peer leaves from swrxe2's 10.0.7.2.
  const auto choice = choose_gid(two_address_rail(), std::nullopt, AddressFamily::ipv4, route_source("10.0.7.2"));
  CHECK(choice.entry.index == 3);
  CHECK(choice.reason == "RoCEv2 IPv4 GID: 10.0.7.2, " + kRoute + ", is not on this port");
  CHECK_THAT(choice.warning, Catch::Contains("10.0.7.2, " + kRoute + ", is no address of swrxe1 port 1"));
  CHECK_THAT(choice.warning, Catch::Contains("the GID falls back to the rule by family (RoCEv2 IPv4 GID), "
                                              "::ffff:10.0.7.1 (index 3), so this side's packets leave from "
                                              "that address"));
  CHECK_THAT(choice.warning, Catch::Contains("give -d the device of the route's interface, or --source-ip"));
  const auto transport = resolve_transport(two_address_rail(), std::nullopt, AddressFamily::ipv4, route_source("10.0.7.2"));
  CHECK(transport.gid_warning == choice.warning);
}

TEST_CASE("GID by route: --source-ip's address must be on the port", "[transport]") {
  const auto port = two_address_rail();
  const auto given = choose_gid(port, std::nullopt, AddressFamily::ipv4, route_source("10.0.7.3", true));
  CHECK(given.entry.index == 5);
  CHECK(given.reason == "RoCEv2 GID of 10.0.7.3, given with --source-ip");
  REQUIRE_THROWS_MATCHES(choose_gid(port, std::nullopt, AddressFamily::ipv4, route_source("10.0.7.2", true)), Error,
                         MessageContains("swrxe1 port 1 has no GID for 10.0.7.2, given with --source-ip"));
  REQUIRE_THROWS_MATCHES(choose_gid(port, std::nullopt, AddressFamily::ipv4, route_source("10.0.7.2", true)), Error,
                         MessageContains("give -d the device whose network interface holds 10.0.7.2"));
}

TEST_CASE("GID by route: -x wins, and must be --source-ip's GID when both are given", "[transport]") {
  const auto port = two_address_rail();
  CHECK(choose_gid(port, 3, AddressFamily::ipv4, route_source("10.0.7.3")).reason == "given with -x");
  CHECK(choose_gid(port, 5, AddressFamily::ipv4, route_source("10.0.7.3", true)).entry.index == 5);
  REQUIRE_THROWS_MATCHES(choose_gid(port, 3, AddressFamily::ipv4, route_source("10.0.7.3", true)), Error,
                         MessageContains("-x 3 names GID ::ffff:10.0.7.1 of swrxe1 port 1, not the GID of "
                                         "10.0.7.3, given with --source-ip"));
}

TEST_CASE("GID by route: InfiniBand and iWARP do not route by the GID's address", "[transport]") {
  PortAttributes ib;
  ib.device = "mlx5_1";
  ib.link_layer = LinkLayer::infiniband;
  ib.gids = {{0, kRailLinkLocal, GidType::ib}};
  const auto on_ib = choose_gid(ib, std::nullopt, AddressFamily::ipv4, route_source("10.0.7.3", true));
  CHECK(on_ib.entry.index == 0);
  CHECK(on_ib.reason == "first GID (InfiniBand routes by LID)");
  CHECK(on_ib.warning.empty());
  PortAttributes siw = ib;
  siw.device = "siw0";
  siw.link_layer = LinkLayer::ethernet;
  siw.iwarp = true;
  const auto on_siw = choose_gid(siw, std::nullopt, AddressFamily::ipv4, route_source("10.0.7.3"));
  CHECK_THAT(on_siw.reason, Catch::Contains("iWARP"));
  CHECK(on_siw.warning.empty());
}
