#pragma once
// Where this host's packets to a peer leave from, as the kernel routes
// them: the source address the GID choice follows (a multi-rail host whose
// rails share one subnet must send from the rail its route names), and
// --source-ip's check that an address is this host's.

#include <optional>
#include <string>

#include "rdmabench/verbs/transport.hpp"

namespace rdmabench::detail {

/// The source address the kernel gives this host's packets to `peer` (a
/// numeric address or a host name): a UDP socket connected to it, read back
/// with getsockname, so nothing is sent. Empty when there is no route or
/// `peer` does not resolve.
std::string routed_source(const std::string& peer);

/// The network interface that holds `address` ("eth1"); empty if none does.
std::string interface_holding(const std::string& address);

/// Throws an Error naming `option` unless `address` is a numeric address
/// of one of this host's interfaces.
void require_host_address(const std::string& address, const char* option = "--source-ip");

/// Whether `address` is a loopback address (127.0.0.0/8, ::1), which no
/// RDMA port holds.
bool is_loopback_address(const std::string& address);

/// What the client's GID choice follows: --source-ip `source_ip` (required,
/// checked to be this host's), else the source of the kernel's route to
/// `server`; nullopt where neither is known or the route is the loopback's.
std::optional<SourceAddress> client_gid_source(const std::string& server, const std::string& source_ip);

/// What the server's follows: `local_host`, the address the client
/// connected to, else the source of the kernel's route to `client_host`.
std::optional<SourceAddress> server_gid_source(const std::string& local_host, const std::string& client_host);

}  // namespace rdmabench::detail
