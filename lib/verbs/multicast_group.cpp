// Naming multicast groups: -M/--mgid's three forms, the default group, and
// the groups each fabric can join through rdma_cm.
#include "rdmabench/verbs/multicast_group.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <vector>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

namespace {

constexpr const char* kForms =
    "give an IPv4 multicast address (239.1.1.1), a GID in IPv6 notation (ff12:401b::1, "
    "::ffff:239.1.1.1) or perftest's 16 byte values (255:18:64:27:0:0:0:0:0:0:0:0:0:0:0:1)";

Gid ipv4_mapped(std::uint32_t address_network_order) {
  Gid gid{};
  gid[10] = gid[11] = 0xff;
  const auto host = ntohl(address_network_order);
  for (int i = 0; i < 4; ++i) gid[12 + i] = static_cast<std::uint8_t>(host >> (24 - 8 * i));
  return gid;
}

bool is_ipv4_multicast(std::uint32_t address_network_order) {
  return (ntohl(address_network_order) >> 28) == 0xe;  // 224.0.0.0/4
}

/// perftest's -M: 16 values separated by ':', as strtol(..., 0) reads each.
std::optional<Gid> perftest_form(const std::string& text) {
  std::vector<std::string> fields(1);
  for (char c : text) {
    if (c == ':') fields.emplace_back();
    else fields.back() += c;
  }
  if (fields.size() != 16) return std::nullopt;
  Gid gid{};
  for (std::size_t i = 0; i < 16; ++i) {
    const std::string& f = fields[i];
    if (f.empty() || f[0] == '-' || f[0] == '+' || f[0] == ' ') return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(f.c_str(), &end, 0);
    if (errno != 0 || *end != '\0' || value < 0 || value > 255) return std::nullopt;
    gid[i] = static_cast<std::uint8_t>(value);
  }
  return gid;
}

}  // namespace

std::uint32_t ipv4_of(const Gid& gid) {
  std::uint32_t host = 0;
  for (int i = 0; i < 4; ++i) host = (host << 8) | gid[12 + i];
  return htonl(host);
}

bool is_multicast_gid(const Gid& gid) {
  return gid[0] == 0xff || (is_ipv4_mapped(gid) && is_ipv4_multicast(ipv4_of(gid)));
}

Gid parse_multicast_gid(const std::string& text) {
  Gid gid{};
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    require(is_ipv4_multicast(v4.s_addr),
            fmt::format("-M/--mgid {} is not a multicast address: IPv4 groups run from 224.0.0.0 to "
                        "239.255.255.255",
                        text),
            "give a group such as 239.1.1.1 (239.0.0.0/8 is for use within a site)");
    return ipv4_mapped(v4.s_addr);
  }
  if (::inet_pton(AF_INET6, text.c_str(), gid.data()) != 1) {
    const auto perftest = perftest_form(text);
    require(perftest.has_value(), fmt::format("-M/--mgid {} is not a GID", text), kForms);
    gid = *perftest;
  }
  require(is_multicast_gid(gid),
          fmt::format("-M/--mgid {} ({}) is not a multicast group: a multicast GID starts with ff, "
                      "or is an IPv4 group 224.0.0.0 to 239.255.255.255 as ::ffff:a.b.c.d",
                      text, format_gid(gid)),
          kForms);
  return gid;
}

Gid default_multicast_gid(LinkLayer link_layer, std::uint16_t tcp_port) {
  const std::uint32_t address = htonl((239u << 24) | (255u << 16) | tcp_port);
  return multicast_gid_for(ipv4_mapped(address), link_layer);
}

Gid multicast_gid_for(const Gid& group, LinkLayer link_layer) {
  require(is_multicast_gid(group), fmt::format("{} is not a multicast group", format_gid(group)), kForms);
  if (link_layer == LinkLayer::infiniband) {
    if (!is_ipv4_mapped(group)) return group;
    // IPoIB's MGID of an IPv4 group: link-local scope, the IPv4 signature
    // 401b, the default partition's P_Key, then the group's low 28 bits.
    Gid mgid{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff};
    mgid[12] = group[12] & 0x0f;
    for (int i = 13; i < 16; ++i) mgid[i] = group[i];
    return mgid;
  }
  require(is_ipv4_mapped(group),
          fmt::format("the multicast group {} is an IPv6 one: rdma_cm joins RoCE groups by IPv4 "
                      "address only (with IGMP), so this group cannot be joined on Ethernet",
                      format_gid(group)),
          "give -M an IPv4 multicast address such as 239.1.1.1 (or ::ffff:239.1.1.1)");
  return group;
}

}  // namespace rdmabench
