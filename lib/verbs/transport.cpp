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
                            AddressFamily family, const std::optional<SourceAddress>& source) {
  Transport t;
  GidChoice choice = choose_gid(port, gid_index, family, source);
  t.gid = choice.entry;
  t.gid_reason = std::move(choice.reason);
  t.gid_warning = std::move(choice.warning);
  t.kind = classify(port, t.gid);
  // iWARP QPs can only be connected through rdma_cm (the TCP stream is the
  // connection); there is no QP attribute exchange that would work.
  t.requires_rdma_cm = t.kind == TransportKind::iwarp;
  t.global_route = port.link_layer == LinkLayer::ethernet || gid_index.has_value();
  return t;
}

}  // namespace rdmabench
