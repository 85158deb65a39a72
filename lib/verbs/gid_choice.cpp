// Which GID a queue pair's packets carry as their source: -x, else on RoCE
// the GID of the address the kernel's route to the peer leaves from (so
// that on a multi-rail host whose rails share one subnet the packets leave
// from the rail the route names), else the first RoCEv2 GID of the family.
#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench {

namespace {

/// "0-1, 4" for indexes {0, 1, 4}.
std::string format_index_ranges(std::vector<std::uint32_t> indexes) {
  std::sort(indexes.begin(), indexes.end());
  std::string out;
  for (std::size_t i = 0; i < indexes.size();) {
    std::size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", indexes[i]) : fmt::format("{}-{}", indexes[i], indexes[j]);
    i = j + 1;
  }
  return out;
}

const GidEntry* find_first(const PortAttributes& port, auto&& predicate) {
  auto it = std::find_if(port.gids.begin(), port.gids.end(), predicate);
  return it == port.gids.end() ? nullptr : &*it;
}

bool routes_by_ip(const PortAttributes& port) { return port.link_layer == LinkLayer::ethernet && !port.iwarp; }

/// The entry -x names, or an Error listing the valid ones.
const GidEntry& requested_entry(const PortAttributes& port, std::uint32_t requested) {
  // The address vector carries the source GID index in 8 bits.
  require(requested <= 255,
          fmt::format("GID index {} cannot be used: a queue pair's source GID index is 8 bits, 0 to 255",
                      requested),
          "give -x between 0 and 255, or omit it to choose automatically");
  if (auto* e = find_first(port, [&](const GidEntry& g) { return g.index == requested; })) return *e;
  std::vector<std::uint32_t> valid;
  for (const auto& g : port.gids) valid.push_back(g.index);
  throw Error(fmt::format("GID index {} does not exist on {} port {}; valid: {}", requested, port.device,
                          port.port, format_index_ranges(valid)),
              "omit -x/--gid-index to choose automatically");
}

/// The rule without a source address: on RoCE a RoCEv2 GID of `family`
/// that is not link-local, then any RoCEv2, then the first (RoCEv1).
GidChoice by_family(const PortAttributes& port, AddressFamily family) {
  if (!routes_by_ip(port))
    return {port.gids.front(),
            port.iwarp ? "iWARP: addressing is rdma_cm's, GID for reference only"
                       : "first GID (InfiniBand routes by LID)",
            {}};
  const bool want_v4 = family == AddressFamily::ipv4;
  const char* family_name = want_v4 ? "IPv4" : "IPv6";
  if (auto* e = find_first(port, [&](const GidEntry& g) {
        return g.type == GidType::roce_v2 && is_ipv4_mapped(g.gid) == want_v4 && !is_link_local(g.gid);
      }))
    return {*e, fmt::format("RoCEv2 {} GID", family_name), {}};
  if (auto* e = find_first(port, [](const GidEntry& g) { return g.type == GidType::roce_v2; }))
    return {*e, fmt::format("RoCEv2 GID (no {} RoCEv2 GID on this port)", family_name), {}};
  return {port.gids.front(), "RoCEv1 GID (the port has no RoCEv2 GID)", {}};
}

/// The port's GID of the source address: RoCEv2 first, as the rule by
/// family prefers it; null when the address is not on this port.
const GidEntry* source_entry(const PortAttributes& port, const Gid& source) {
  if (auto* e = find_first(port, [&](const GidEntry& g) { return g.gid == source && g.type == GidType::roce_v2; }))
    return e;
  return find_first(port, [&](const GidEntry& g) { return g.gid == source; });
}

}  // namespace

std::optional<Gid> gid_of_address(const std::string& text) {
  Gid gid{};
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    gid[10] = gid[11] = 0xff;
    std::memcpy(gid.data() + 12, &v4, sizeof v4);
    return gid;
  }
  if (::inet_pton(AF_INET6, text.c_str(), gid.data()) == 1) return gid;
  return std::nullopt;
}

std::optional<SourceAddress> source_address(const std::string& address, std::string learnt_from, bool required) {
  const auto gid = gid_of_address(address);
  if (!gid) return std::nullopt;
  return SourceAddress{*gid, address, std::move(learnt_from), required};
}

GidChoice choose_gid(const PortAttributes& port, std::optional<std::uint32_t> requested, AddressFamily family,
                     const std::optional<SourceAddress>& source) {
  require(!port.gids.empty(), fmt::format("{} port {} has no valid GID", port.device, port.port),
          "on RoCE the port needs an IP address on its network interface");
  const bool by_ip = routes_by_ip(port);
  if (requested) {
    const GidEntry& entry = requested_entry(port, *requested);
    if (by_ip && source && source->required && entry.gid != source->gid)
      throw Error(fmt::format("-x {} names GID {} of {} port {}, not the GID of {}, {}", *requested,
                              format_gid(entry.gid), port.device, port.port, source->address,
                              source->learnt_from),
                  "give one of them: --source-ip alone chooses its address's GID");
    return {entry, "given with -x", {}};
  }
  if (!by_ip || !source) return by_family(port, family);
  if (const GidEntry* e = source_entry(port, source->gid))
    return {*e, fmt::format("{} GID of {}, {}", to_string(e->type), source->address, source->learnt_from), {}};
  if (source->required)
    throw Error(fmt::format("{} port {} has no GID for {}, {}", port.device, port.port, source->address,
                            source->learnt_from),
                fmt::format("give -d the device whose network interface holds {}, or an address of {}'s "
                            "interface",
                            source->address, port.device));
  // The route leaves by another interface than this port's (-d named a
  // device off the route): the rule by family, of the source's family.
  GidChoice choice = by_family(port, is_ipv4_mapped(source->gid) ? AddressFamily::ipv4 : AddressFamily::ipv6);
  choice.warning = fmt::format(
      "{}, {}, is no address of {} port {}: the GID falls back to the rule by family ({}), {} (index {}), "
      "so this side's packets leave from that address, not from the route's; give -d the device of the "
      "route's interface, or --source-ip an address of {}, to choose",
      source->address, source->learnt_from, port.device, port.port, choice.reason,
      format_gid(choice.entry.gid), choice.entry.index, port.device);
  choice.reason += fmt::format(": {}, {}, is not on this port", source->address, source->learnt_from);
  return choice;
}

GidEntry choose_gid(const PortAttributes& port, std::optional<std::uint32_t> requested, AddressFamily family,
                    std::string* reason) {
  GidChoice choice = choose_gid(port, requested, family, std::nullopt);
  if (reason) *reason = std::move(choice.reason);
  return choice.entry;
}

}  // namespace rdmabench
