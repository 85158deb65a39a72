#include "rdmabench/verbs/transport.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

std::string to_string(TransportKind kind) {
  switch (kind) {
    case TransportKind::infiniband: return "InfiniBand";
    case TransportKind::roce_v1: return "RoCEv1";
    case TransportKind::roce_v2: return "RoCEv2";
    case TransportKind::iwarp: return "iWARP";
  }
  return "unknown";
}

bool retries_receiver_not_ready(TransportKind kind) { return kind != TransportKind::iwarp; }

bool idle_server_spins_by_default(TransportKind kind) { return kind == TransportKind::iwarp; }

bool unanswered_connect_blocks_teardown(TransportKind kind) { return kind == TransportKind::iwarp; }

std::uint32_t default_receive_depth(TransportKind kind, int max_qp_wr, int max_cqe,
                                    std::uint32_t queue_pairs) {
  constexpr std::int64_t kPerftest = 512, kWithoutRetry = 4096;
  if (retries_receiver_not_ready(kind)) return kPerftest;
  // One CQ takes every QP's receive completions, plus one.
  const std::int64_t cq_share =
      (std::int64_t{max_cqe} - 1) / std::max<std::uint32_t>(queue_pairs, 1);
  const std::int64_t fits = std::min<std::int64_t>({kWithoutRetry, max_qp_wr, cq_share});
  const std::int64_t floor = std::min<std::int64_t>(kPerftest, max_qp_wr);
  return static_cast<std::uint32_t>(std::max(fits, floor));
}

std::string to_string(GidType type) {
  switch (type) {
    case GidType::ib: return "IB";
    case GidType::roce_v1: return "RoCEv1";
    case GidType::roce_v2: return "RoCEv2";
  }
  return "unknown";
}

bool is_ipv4_mapped(const Gid& gid) {
  static constexpr std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::equal(std::begin(prefix), std::end(prefix), gid.begin());
}

bool is_link_local(const Gid& gid) { return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80; }

std::string format_gid(const Gid& gid) {
  char text[INET6_ADDRSTRLEN];
  return ::inet_ntop(AF_INET6, gid.data(), text, sizeof text) ? text : "?";
}

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

}  // namespace

GidEntry choose_gid(const PortAttributes& port, std::optional<std::uint32_t> requested,
                    AddressFamily family, std::string* reason) {
  auto say = [&](std::string why) {
    if (reason) *reason = std::move(why);
  };
  require(!port.gids.empty(),
          fmt::format("{} port {} has no valid GID", port.device, port.port),
          "on RoCE the port needs an IP address on its network interface");
  if (requested) {
    // The address vector carries the source GID index in 8 bits.
    require(*requested <= 255,
            fmt::format("GID index {} cannot be used: a queue pair's source GID index is 8 bits, 0 to 255",
                        *requested),
            "give -x between 0 and 255, or omit it to choose automatically");
    if (auto* e = find_first(port, [&](const GidEntry& g) { return g.index == *requested; })) {
      say("given with -x");
      return *e;
    }
    std::vector<std::uint32_t> valid;
    for (const auto& g : port.gids) valid.push_back(g.index);
    throw Error(fmt::format("GID index {} does not exist on {} port {}; valid: {}", *requested,
                            port.device, port.port, format_index_ranges(valid)),
                "omit -x/--gid-index to choose automatically");
  }
  if (port.link_layer == LinkLayer::ethernet && !port.iwarp) {
    const bool want_v4 = family == AddressFamily::ipv4;
    const char* family_name = want_v4 ? "IPv4" : "IPv6";
    if (auto* e = find_first(port, [&](const GidEntry& g) {
          return g.type == GidType::roce_v2 && is_ipv4_mapped(g.gid) == want_v4 &&
                 !is_link_local(g.gid);
        })) {
      say(fmt::format("RoCEv2 {} GID", family_name));
      return *e;
    }
    if (auto* e = find_first(port, [](const GidEntry& g) { return g.type == GidType::roce_v2; })) {
      say(fmt::format("RoCEv2 GID (no {} RoCEv2 GID on this port)", family_name));
      return *e;
    }
    say("RoCEv1 GID (the port has no RoCEv2 GID)");
    return port.gids.front();
  }
  say(port.iwarp ? "iWARP: addressing is rdma_cm's, GID for reference only"
                 : "first GID (InfiniBand routes by LID)");
  return port.gids.front();
}

std::optional<std::string> gid_family_mismatch(const Transport& ours, const Gid& theirs) {
  if (ours.kind != TransportKind::roce_v2) return std::nullopt;
  const bool ours_v4 = is_ipv4_mapped(ours.gid.gid), theirs_v4 = is_ipv4_mapped(theirs);
  if (ours_v4 == theirs_v4) return std::nullopt;
  auto family = [](bool v4) { return v4 ? "IPv4" : "IPv6"; };
  return fmt::format(
      "GID families differ: this side's GID {} (index {}) is {}, the peer's {} is {}; RoCEv2 packets "
      "between them would go unanswered. Reach the server by an address of the family both sides "
      "have RoCEv2 GIDs for, or give -x on both sides with GIDs of one family",
      format_gid(ours.gid.gid), ours.gid.index, family(ours_v4), format_gid(theirs), family(theirs_v4));
}

TransportKind classify(const PortAttributes& port, const GidEntry& gid) {
  if (port.iwarp) return TransportKind::iwarp;
  if (port.link_layer == LinkLayer::infiniband) return TransportKind::infiniband;
  return gid.type == GidType::roce_v2 ? TransportKind::roce_v2 : TransportKind::roce_v1;
}

Transport resolve_transport(const PortAttributes& port, std::optional<std::uint32_t> gid_index,
                            AddressFamily family) {
  Transport t;
  t.gid = choose_gid(port, gid_index, family, &t.gid_reason);
  t.kind = classify(port, t.gid);
  // iWARP QPs can only be connected through rdma_cm (the TCP stream is the
  // connection); there is no QP attribute exchange that would work.
  t.requires_rdma_cm = t.kind == TransportKind::iwarp;
  t.global_route = port.link_layer == LinkLayer::ethernet || gid_index.has_value();
  return t;
}

}  // namespace rdmabench
