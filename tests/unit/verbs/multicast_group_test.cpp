// -M/--mgid's forms, the default group, and which groups each fabric joins
// (lib/verbs/multicast_group.cpp): a group a fabric cannot join is refused
// naming it, before any device is touched.
#include "catch2_compat.hpp"

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/multicast_group.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

TEST_CASE("multicast group: -M takes an IPv4 group, IPv6 notation or perftest's 16 bytes", "[multicast]") {
  CHECK(format_gid(parse_multicast_gid("239.1.2.3")) == "::ffff:239.1.2.3");
  CHECK(format_gid(parse_multicast_gid("::ffff:224.0.0.251")) == "::ffff:224.0.0.251");
  CHECK(format_gid(parse_multicast_gid("ff12:401b:ffff::1")) == "ff12:401b:ffff::1");
  // perftest's form: decimal, 0x hex or 0 octal per byte, as strtol reads them.
  CHECK(format_gid(parse_multicast_gid("255:18:64:27:0:0:0:0:0:0:0:0:0:0:0:1")) == "ff12:401b::1");
  CHECK(format_gid(parse_multicast_gid("0xff:0x12:0:0:0:0:0:0:0:0:0:0:0:0:010:0x2a")) == "ff12::82a");
}

TEST_CASE("multicast group: garbage and unicast addresses are refused, naming the forms", "[multicast]") {
  for (const char* garbage : {"", "group", "239.1.2", "ff12:::1", "255:18:64:27",
                              "256:18:64:27:0:0:0:0:0:0:0:0:0:0:0:1", "255:18:64:27:0:0:0:0:0:0:0:0:0:0:0:-1",
                              "255:18:64:27:0:0:0:0:0:0:0:0:0:0:0:1x"}) {
    INFO(garbage);
    REQUIRE_THROWS_MATCHES(parse_multicast_gid(garbage), Error,
                           MessageContains("is not a GID (give an IPv4 multicast address (239.1.1.1)"));
  }
  REQUIRE_THROWS_MATCHES(parse_multicast_gid("10.0.2.15"), Error,
                         MessageContains("-M/--mgid 10.0.2.15 is not a multicast address: IPv4 groups run from "
                                         "224.0.0.0 to 239.255.255.255"));
  REQUIRE_THROWS_MATCHES(parse_multicast_gid("fe80::1"), Error,
                         MessageContains("-M/--mgid fe80::1 (fe80::1) is not a multicast group: a multicast GID "
                                         "starts with ff"));
  REQUIRE_THROWS_MATCHES(parse_multicast_gid("::ffff:10.0.2.15"), Error, MessageContains("is not a multicast group"));
}

TEST_CASE("multicast group: the default follows the control port, on each fabric", "[multicast]") {
  CHECK(format_gid(default_multicast_gid(LinkLayer::ethernet, 18515)) == "::ffff:239.255.72.83");
  CHECK(format_gid(default_multicast_gid(LinkLayer::ethernet, 18517)) == "::ffff:239.255.72.85");
  // On InfiniBand, IPoIB's MGID of that IPv4 group in the default partition.
  CHECK(format_gid(default_multicast_gid(LinkLayer::infiniband, 18515)) == "ff12:401b:ffff::fff:4853");
  CHECK(is_multicast_gid(default_multicast_gid(LinkLayer::infiniband, 1)));
}

TEST_CASE("multicast group: RoCE joins IPv4 groups only, InfiniBand any MGID", "[multicast]") {
  const Gid v4 = parse_multicast_gid("239.1.1.1");
  const Gid v6 = parse_multicast_gid("ff0e::1");
  CHECK(multicast_gid_for(v4, LinkLayer::ethernet) == v4);
  CHECK(multicast_gid_for(v6, LinkLayer::infiniband) == v6);
  CHECK(format_gid(multicast_gid_for(v4, LinkLayer::infiniband)) == "ff12:401b:ffff::f01:101");
  REQUIRE_THROWS_MATCHES(multicast_gid_for(v6, LinkLayer::ethernet), Error,
                         MessageContains("the multicast group ff0e::1 is an IPv6 one: rdma_cm joins RoCE groups "
                                         "by IPv4 address only"));
  REQUIRE_THROWS_MATCHES(multicast_gid_for(v6, LinkLayer::ethernet), Error,
                         MessageContains("give -M an IPv4 multicast address such as 239.1.1.1"));
}
