// Both ends of a RoCEv2 queue pair need GIDs of one IP family: the server
// picks its GID by the family of the client's address, and a mismatch that
// remains (e.g. -x on one side) is refused with both GIDs named instead of
// ending in "retry exceeded".
#include "catch2_compat.hpp"

#include "rdmabench/verbs/transport.hpp"
#include "sample_gids.hpp"

using namespace rdmabench;
using rdmabench::test::kIpv4;
using rdmabench::test::kIpv6;

namespace {


Transport with(TransportKind kind, Gid gid) {
  Transport t;
  t.kind = kind;
  t.gid = {1, gid, kind == TransportKind::roce_v2 ? GidType::roce_v2 : GidType::ib};
  return t;
}

}  // namespace

TEST_CASE("RoCEv2 GIDs of one family pass: of two families are refused naming both", "[transport]") {
  CHECK_FALSE(gid_family_mismatch(with(TransportKind::roce_v2, kIpv4), kIpv4));
  CHECK_FALSE(gid_family_mismatch(with(TransportKind::roce_v2, kIpv6), kIpv6));
  const auto mismatch = gid_family_mismatch(with(TransportKind::roce_v2, kIpv4), kIpv6);
  REQUIRE(mismatch);
  CHECK_THAT(*mismatch, Catch::Contains("this side's GID ::ffff:10.0.2.15 (index 1) is IPv4"));
  CHECK_THAT(*mismatch, Catch::Contains("the peer's 2001:db8::15 is IPv6"));
  CHECK_THAT(*mismatch, Catch::Contains("give -x on both sides"));
}

TEST_CASE("GID families are not checked where they do not decide the route", "[transport]") {
  // InfiniBand routes by LID; RoCEv1 GIDs are link-layer; iWARP's are for reference.
  for (auto kind : {TransportKind::infiniband, TransportKind::roce_v1, TransportKind::iwarp})
    CHECK_FALSE(gid_family_mismatch(with(kind, kIpv4), kIpv6));
}

TEST_CASE("the server's GID follows the family of the client's address", "[transport]") {
  PortAttributes port;
  port.device = "rxe0";
  port.link_layer = LinkLayer::ethernet;
  port.gids = {{0, kIpv6, GidType::roce_v2}, {1, kIpv4, GidType::roce_v2}};
  CHECK(resolve_transport(port, std::nullopt, AddressFamily::ipv4).gid.gid == kIpv4);
  CHECK(resolve_transport(port, std::nullopt, AddressFamily::ipv6).gid.gid == kIpv6);
}
