#pragma once
// Host name resolution shared by the TCP control connection and rdma_cm.

#include <netdb.h>

#include <cstdint>
#include <memory>
#include <string>

namespace rdmabench::detail {

using AddressList = std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)>;

/// Every stream address of `host`:`port`; throws an Error naming the host.
AddressList resolve_address(const std::string& host, std::uint16_t port);

/// The numeric host of `address` ("10.0.2.15", "fe80::1"); an IPv4 address
/// seen through a dual-stack socket (::ffff:a.b.c.d) as plain IPv4, so that
/// the same peer compares equal however it arrived. Empty if unknown.
std::string numeric_host(const sockaddr* address);

/// A listening address for `host` ("" for every address) and `port`: IPv6
/// dual-stack when `host` is empty and the host has IPv6, else IPv4; a
/// literal address as given. Throws an Error naming --bind for a bad one.
sockaddr_storage listen_address(const std::string& host, std::uint16_t port, bool ipv6_available);

/// The wildcard address of `family` (or `source`, a numeric address of
/// this host, when given) with a port that no TCP socket of this host holds
/// (TCP's own allocator chose it, its lingering TIME_WAIT sockets
/// included): the source an rdma_cm client binds, because an iWARP
/// provider's TCP socket binds the port rdma_cm picked, and rdma_cm picks
/// from a port space of its own, blind to TCP's. Throws an Error naming
/// `source` when it is no address of this host of that family.
sockaddr_storage free_tcp_source(int family, const std::string& source = {});

}  // namespace rdmabench::detail
