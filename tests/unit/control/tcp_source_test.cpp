// The source an rdma_cm client binds (lib/control/address.cpp): a port TCP
// holds nowhere, from the wildcard or from an address of this host that the
// caller names (rdma_sweep's pair clients, whose partner's server accepts
// that address alone).

#include "control/address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "catch2_compat.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using rdmabench::detail::free_tcp_source;
using rdmabench::test::MessageContains;

namespace {

std::string ipv4_of(const sockaddr_storage& address) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof text);
  return text;
}

std::uint16_t port_of(const sockaddr_storage& address) {
  return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
}

}  // namespace

TEST_CASE("rdma_cm source: the wildcard, or the address asked for, each with a free port", "[unit][control]") {
  const auto any = free_tcp_source(AF_INET);
  CHECK(ipv4_of(any) == "0.0.0.0");
  CHECK(port_of(any) != 0);
  const auto loopback = free_tcp_source(AF_INET, "127.0.0.1");
  CHECK(ipv4_of(loopback) == "127.0.0.1");
  CHECK(port_of(loopback) != 0);
}

TEST_CASE("rdma_cm source: an address that is not this host's, or none, is named", "[unit][control]") {
  // 192.0.2.1: TEST-NET-1 (RFC 5737), on no host's interface.
  REQUIRE_THROWS_MATCHES(free_tcp_source(AF_INET, "192.0.2.1"), rdmabench::Error,
                         MessageContains("the source address 192.0.2.1 is not one of this host's"));
  REQUIRE_THROWS_MATCHES(free_tcp_source(AF_INET, "rail0-host"), rdmabench::Error,
                         MessageContains("the source address 'rail0-host' is not a numeric IPv4 address"));
}
