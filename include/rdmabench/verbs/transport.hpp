#pragma once
/// @file
/// Which fabric a port speaks (InfiniBand, RoCE v1/v2, iWARP) and which GID to
/// use on it, decided once at setup from the port's attributes. Transport
/// quirks live here; the data path never asks which fabric it runs on.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

enum class TransportKind { infiniband, roce_v1, roce_v2, iwarp };
enum class LinkLayer { infiniband, ethernet };
enum class GidType { ib, roce_v1, roce_v2 };
enum class AddressFamily { ipv4, ipv6 };

using Gid = std::array<std::uint8_t, 16>;

struct GidEntry {
  std::uint32_t index = 0;
  Gid gid{};
  GidType type = GidType::ib;
};

/// What the verbs report about one port, as plain data (recordable in tests).
struct PortAttributes {
  std::string device;
  std::uint8_t port = 1;
  bool iwarp = false;  ///< transport_type == IBV_TRANSPORT_IWARP
  LinkLayer link_layer = LinkLayer::infiniband;
  std::uint16_t lid = 0;
  std::uint32_t active_mtu_bytes = 0;
  std::uint64_t max_message_bytes = 0;  ///< min(port max_msg_sz, device max_mr_size)
  std::uint16_t pkey_table_length = 0;  ///< pkey_tbl_len: --pkey-index must be below it
  std::vector<GidEntry> gids;           ///< valid entries of the GID table
};

/// The address this side's packets to the peer carry as their source, as
/// far as the GID choice can learn it: the source of the kernel's route to
/// the peer, the address given with --source-ip, or on a server the address
/// the client connected to. On RoCE the GID is this address's.
struct SourceAddress {
  Gid gid{};            ///< the address as a GID (::ffff:a.b.c.d for IPv4)
  std::string address;  ///< as people write it: "10.0.2.16"
  /// How it was learnt, as the GID line says it: "the source of the
  /// kernel's route to 10.0.2.15 (interface eth1)", "given with --source-ip".
  std::string learnt_from;
  /// --source-ip: the GID must be this address's, and a port without one
  /// is an error; otherwise such a port keeps the rule by family, and says so.
  bool required = false;
};

/// `text` as a GID: IPv4 mapped (::ffff:a.b.c.d), IPv6 as it is; nullopt
/// for anything but a numeric address.
std::optional<Gid> gid_of_address(const std::string& text);

/// A SourceAddress for numeric `address`; nullopt when it is not one.
std::optional<SourceAddress> source_address(const std::string& address, std::string learnt_from,
                                            bool required = false);

/// The decision: fabric, GID, and whether rdma_cm is mandatory.
struct Transport {
  TransportKind kind = TransportKind::infiniband;
  GidEntry gid;
  std::string gid_reason;  ///< why this GID: "given with -x", "RoCEv2 IPv4"...
  /// Set where the route's source address is not on this port, so that the
  /// GID fell back to the rule by family: for the user, once, before the run.
  std::string gid_warning;
  bool requires_rdma_cm = false;
  /// Whether QPs carry a GRH (ah_attr.is_global) with this GID: always on
  /// RoCE, which has no LIDs; on InfiniBand only when -x named a GID, as
  /// perftest does, for subnets joined by routers.
  bool global_route = false;
};

std::string to_string(TransportKind kind);

/// On RoCEv2 both ends of a queue pair must use GIDs of one IP family (an
/// IPv4-mapped GID cannot reach an IPv6 one: the packets go unanswered and
/// the run dies of "retry exceeded"). The message that says so, naming both
/// GIDs and what to do, or nullopt when they agree or nothing is to check.
std::optional<std::string> gid_family_mismatch(const Transport& ours, const Gid& theirs);

/// --passive-wait auto: whether the idle server of a read or atomic latency
/// test keeps a CPU awake. True on iWARP, where soft-iWARP sends each read
/// response from a kernel thread that an idle CPU keeps waiting. False
/// elsewhere: on rxe spinning gains nothing and now and then costs a
/// scheduler tick; a hardware NIC answers by itself. Measurements:
/// docs/methodology.md#passive-wait.
bool idle_server_spins_by_default(TransportKind kind);

/// Whether tearing down an rdma_cm connection the peer never answered
/// (disconnect, destroying its QP or id) waits in the kernel for the
/// answer. True on iWARP: iw_cm and siw wait, uninterruptibly, until the
/// MPA reply times out (10 s on siw); IB/RoCE's CM does not wait.
bool unanswered_connect_blocks_teardown(TransportKind kind);

/// False on iWARP: it has no receiver-not-ready retry, so a send that finds
/// no receive posted ends the connection instead of waiting for one.
bool retries_receiver_not_ready(TransportKind kind);

/// The -r/--rx-depth default: 512, as perftest's. Without receiver-not-ready
/// retry (iWARP) a receiver that falls behind ends the connection, and siw
/// completes a send when TCP takes it, so a sender can run thousands of
/// messages ahead (docs/methodology.md#receive-depth): there it is 4096,
/// within what the device's queue and its completion queue hold for
/// `queue_pairs` QPs.
std::uint32_t default_receive_depth(TransportKind kind, int max_qp_wr, int max_cqe,
                                    std::uint32_t queue_pairs);

std::string to_string(GidType type);
std::string format_gid(const Gid& gid);
bool is_ipv4_mapped(const Gid& gid);
bool is_link_local(const Gid& gid);

/// Chooses the GID: the requested index if it exists (else an Error listing
/// the valid ones); otherwise on RoCE a RoCEv2 GID of `family` that is not
/// link-local (falling back to any RoCEv2, then RoCEv1), on IB and iWARP the
/// first entry.
GidEntry choose_gid(const PortAttributes& port, std::optional<std::uint32_t> requested,
                    AddressFamily family, std::string* reason = nullptr);

/// A GID, why it was chosen, and what the user should hear about it.
struct GidChoice {
  GidEntry entry;
  std::string reason;
  std::string warning;  ///< empty, or why the route's source could not decide
};

/// choose_gid with what is known of the source address. On RoCE without -x
/// the GID is the source's (RoCEv2 first), its family the source's; a
/// source that is not on this port leaves the rule by family in charge,
/// with a warning, unless it is `required` (--source-ip): then an Error
/// naming the address and the port. With -x, a required source must be the
/// GID's address. On InfiniBand and iWARP the source changes nothing.
GidChoice choose_gid(const PortAttributes& port, std::optional<std::uint32_t> requested,
                     AddressFamily family, const std::optional<SourceAddress>& source);

/// Classifies the port given the GID that will be used.
TransportKind classify(const PortAttributes& port, const GidEntry& gid);

/// choose_gid + classify + the rules that follow from the fabric (rdma_cm
/// on iWARP, the GRH on RoCE and on InfiniBand with `gid_index`).
Transport resolve_transport(const PortAttributes& port, std::optional<std::uint32_t> gid_index,
                            AddressFamily family, const std::optional<SourceAddress>& source = std::nullopt);

}  // namespace rdmabench
