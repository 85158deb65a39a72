// The handshake's part in a multicast run (-g): the server joins its group
// and announces it in place of its first QP's address; the client checks
// what it was told before it sends there.
#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/multicast_group.hpp"
#include "control/session_internal.hpp"

namespace rdmabench::detail {

Gid multicast_group_to_join(const SideConfig& config, LinkLayer link_layer) {
  return config.multicast_group ? multicast_gid_for(*config.multicast_group, link_layer)
                                : default_multicast_gid(link_layer, config.tcp_port);
}

void join_multicast_group(Session& s, const SideConfig& config) {
  Connection& c = s.connection;
  c.join_multicast(multicast_group_to_join(config, c.port.link_layer), s.timeout);
}

void announce_multicast_group(const Connection& c, wire::Endpoint& endpoint) {
  if (!c.multicast) return;
  endpoint.qp_number = kMulticastQpNumber;
  endpoint.gid = c.multicast->group();
  endpoint.lid = c.multicast->lid();
}

void check_peer_endpoint(Session& s, const wire::Endpoint& peer, const std::optional<Gid>& named_group) {
  Connection& c = s.connection;
  const bool group_expected = s.spec.multicast_receivers && s.role == Role::client;
  if (!group_expected) {
    // A queue pair's number has 24 bits; all ones addresses a multicast group.
    require(peer.qp_number < kMulticastQpNumber,
            fmt::format("protocol error: the peer announces queue pair number {:#x}; expected one "
                        "below {:#x}{}",
                        peer.qp_number, kMulticastQpNumber,
                        peer.qp_number == kMulticastQpNumber ? " (that one addresses a multicast group, and "
                                                               "this run agreed on none)"
                                                             : ""));
    return;
  }
  require(peer.qp_number == kMulticastQpNumber && is_multicast_gid(peer.gid),
          fmt::format("protocol error: the server of this multicast run (-g) announces queue pair {:#x} "
                      "at GID {}; expected its group: queue pair {:#x} at a multicast GID",
                      peer.qp_number, format_gid(peer.gid), kMulticastQpNumber));
  if (c.port.link_layer == LinkLayer::ethernet) {
    require(is_ipv4_mapped(peer.gid),
            fmt::format("the server's multicast group {} is not an IPv4 one: RoCE groups are joined by "
                        "IPv4 address",
                        format_gid(peer.gid)),
            "run both sides of the same rdmabench version");
    require(is_ipv4_mapped(c.transport.gid.gid),
            fmt::format("the server's multicast group {} is an IPv4 one, and this side sends from the "
                        "IPv6 GID {} (index {}): RoCEv2 cannot carry one to the other",
                        format_gid(peer.gid), format_gid(c.transport.gid.gid), c.transport.gid.index),
            "reach the server by its IPv4 address, or give -x an IPv4 GID of this port");
  }
  if (named_group) {
    const Gid expected = multicast_gid_for(*named_group, c.port.link_layer);
    require(peer.gid == expected,
            fmt::format("the server sends to the multicast group {}, and -M/--mgid here names {}",
                        format_gid(peer.gid), format_gid(expected)),
            "give the server the same -M, or none here");
  }
  c.multicast_group = peer.gid;
}

}  // namespace rdmabench::detail
