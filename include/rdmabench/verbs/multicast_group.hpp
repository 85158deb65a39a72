#pragma once
/// @file
/// Multicast groups of UD sends (perftest's -g and -M): how a group is
/// written on the command line, which group a server joins when none is
/// named, and which groups each fabric can join. Pure, so that every rule
/// is tested without a device.

#include <cstdint>
#include <string>

#include "rdmabench/verbs/transport.hpp"

namespace rdmabench {

/// The destination QP number of a UD send to a group: every QP attached to
/// the group receives a copy.
inline constexpr std::uint32_t kMulticastQpNumber = 0xFFFFFF;

/// A multicast GID from -M/--mgid's text, in any of three forms:
///  - IPv6 notation: ff12:401b::1, or ::ffff:239.1.1.1 (RoCEv2's form of
///    an IPv4 group);
///  - an IPv4 multicast address, 224.0.0.0 to 239.255.255.255, taken as
///    ::ffff:a.b.c.d (rdma_cm's RoCEv2 mapping);
///  - perftest's: 16 byte values separated by ':', each decimal, 0x hex or
///    0 octal as C's strtol reads them (255:18:64:27:0:0:0:0:0:0:0:0:0:0:0:1).
/// Throws an Error naming what is wrong and the forms it takes when the
/// text is none of these or names no multicast group.
Gid parse_multicast_gid(const std::string& text);

/// ff00::/8, or an IPv4-mapped address in 224.0.0.0/4.
bool is_multicast_gid(const Gid& gid);

/// The group a server joins when -M names none: 239.255.H.L, where H.L is
/// the control port (-p) in two bytes, so that two servers on one fabric
/// with different ports do not hear each other's traffic. On Ethernet
/// (RoCE) as ::ffff:239.255.H.L; on InfiniBand as IPoIB maps that address
/// in the default partition (ff12:401b:ffff::fff:HHLL).
Gid default_multicast_gid(LinkLayer link_layer, std::uint16_t tcp_port);

/// `group` as `link_layer` joins it through rdma_cm: on InfiniBand an
/// IPv4 group becomes IPoIB's MGID for it (as above) and any other
/// multicast GID stays as given; on Ethernet (RoCE) the group must be an
/// IPv4 one, since rdma_cm joins RoCEv2 groups by IPv4 address only (it
/// sends the IGMP membership the switches and the receiving host's IP
/// stack need). Throws an Error naming the group and what to give instead.
Gid multicast_gid_for(const Gid& group, LinkLayer link_layer);

/// The IPv4 address in an IPv4-mapped GID, in network byte order.
std::uint32_t ipv4_of(const Gid& gid);

}  // namespace rdmabench
