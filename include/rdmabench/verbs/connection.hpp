#pragma once
/// @file
/// The verbs side of one run: a device context with its protection domain,
/// completion queues, queue pairs, address handles, buffers and their
/// registrations, the background load's queues, and the limits the device
/// set. Built from a ConnectionPlan (what the test needs of the queues,
/// derived from the agreed spec by the control path); knows nothing of the
/// handshake that exchanges its addresses.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/memory/memory.hpp"
#include "rdmabench/verbs/multicast_membership.hpp"
#include "rdmabench/verbs/qp_type.hpp"
#include "rdmabench/verbs/resources.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench {

/// Per-side queue pair and registration settings (perftest's -I, -m, --sl,
/// --tclass, --flow_label, --hop_limit, --pkey_index, --disable_pcie_relaxed).
struct QpOptions {
  std::optional<std::uint32_t> inline_bytes;  ///< empty: perftest's default for the test and device
  std::optional<std::uint32_t> mtu_bytes;     ///< empty: the port's active MTU
  std::uint8_t service_level = 0;
  std::uint8_t traffic_class = 0;
  /// The GRH's flow label (20 bits); 0 leaves it to the kernel, which on
  /// RoCEv2 derives one from the two QP numbers. RoCEv2 NICs make the UDP
  /// source port from it, which is what ECMP hashes.
  std::uint32_t flow_label = 0;
  /// The GRH's hop limit; 0: kDefaultHopLimit. InfiniBand only: on RoCE the
  /// kernel puts the IP route's hop limit in every address vector.
  std::uint8_t hop_limit = 0;
  std::uint16_t pkey_index = 0;   ///< index into the port's P_Key table
  bool relaxed_ordering = true;   ///< register data buffers with PCIe relaxed ordering
};

/// The hop limit of a GRH when --hop-limit is not given, as the kernel's
/// default IP TTL.
constexpr std::uint8_t kDefaultHopLimit = 64;
/// The largest flow label: 20 bits.
constexpr std::uint32_t kMaxFlowLabel = (1u << 20) - 1;

/// IBV_ACCESS_* flags for the two data buffers and the queue pairs.
struct BufferAccess {
  int local_buffer = 0;    ///< our own work requests: write/send source, read/atomic sink
  int exposed_buffer = 0;  ///< what the peer's operations touch
  int qp = 0;
};

/// What ibv_query_device says that the plan must respect, as plain data
/// (so that a plan can be made and tested without a device).
struct DeviceLimits {
  int max_qp = 0;
  int max_qp_wr = 0;
  int max_cqe = 0;
  int max_qp_init_rd_atom = 0;  ///< RDMA reads we may issue at once
  int max_qp_rd_atom = 0;       ///< RDMA reads we may serve at once
  int max_srq = 0;              ///< shared receive queues; 0: the device has none
  int max_srq_wr = 0;           ///< receives one shared receive queue holds
  int max_srq_sge = 0;          ///< scatter entries of one shared receive
  int max_mcast_grp = 0;        ///< multicast groups; 0: no multicast
  int max_mcast_qp_attach = 0;  ///< queue pairs one group may have attached
  std::uint32_t vendor_id = 0;
  std::uint32_t vendor_part_id = 0;
};

/// The limits of an open device.
DeviceLimits query_device_limits(ibv_context* context);

/// --load-qps: what the background load's queues need; none when queue_pairs is 0.
struct LoadPlan {
  static constexpr std::uint32_t kDepth = 32;  ///< messages each load QP keeps in flight
  /// Receives the server of a send load keeps posted on each load QP: four
  /// times what the sender keeps in flight, so that a receiving thread
  /// descheduled for a while still finds the sender less than a queue ahead.
  static constexpr std::uint32_t kReceiveDepth = 4 * kDepth;
  std::uint32_t queue_pairs = 0;
  std::uint64_t buffer_bytes = 0;
  std::uint32_t receive_depth = 1;  ///< per load QP: kReceiveDepth for a send load
  std::uint32_t cq_entries = 0;     ///< the load's one CQ, both directions
  BufferAccess access;
};

/// Everything the queues are built from, settled against the device's
/// limits before anything is created (see plan_connection in control/).
struct ConnectionPlan {
  QpType qp_type = QpType::rc;
  std::uint32_t queue_pairs = 1;
  std::uint32_t send_queue_depth = 1;
  std::uint32_t receive_queue_depth = 1;
  /// --use-srq: the receives the one shared receive queue keeps posted for
  /// every QP (receive_queue_depth x queue_pairs, at most the device's
  /// max_srq_wr); 0: each QP has a receive queue of its own.
  std::uint32_t shared_receive_depth = 0;
  std::string shared_receive_reason;  ///< how shared_receive_depth was reached, for the report
  std::uint64_t send_cq_entries = 2;     ///< every QP's sends share one CQ
  std::uint64_t receive_cq_entries = 2;  ///< and their receives another
  std::uint8_t read_depth = 0;       ///< reads we may have outstanding, before the peer's answer
  std::uint8_t read_responders = 0;  ///< reads we serve outstanding, before the peer's answer
  std::vector<std::uint32_t> inline_tries;  ///< what QP creation asks for, largest first
  std::string inline_reason;                ///< why, for the report
  std::uint64_t buffer_bytes = 0;  ///< each data buffer: the largest message
  BufferAccess access;
  std::uint8_t ack_timeout = 14;  ///< -u: 4.096 us x 2^ack_timeout per RC retry
  /// -e: both CQs report to a completion channel, which the loops sleep on.
  bool completion_events = false;
  QpOptions qp;
  LoadPlan load;
};

/// The GRH of a connected queue pair's packets, as the device holds it
/// (ibv_query_qp after RTR): on RoCE the kernel has replaced the hop limit
/// asked for with the IP route's (ib_resolve_eth_dmac), so what was asked
/// is not what is sent.
struct GrhFields {
  std::optional<std::uint8_t> hop_limit;  ///< empty: unknown (UD on RoCE: the route's)
  std::uint32_t flow_label = 0;           ///< 0: the kernel's, derived from the QP numbers
  std::uint8_t traffic_class = 0;
};

/// How the peer reaches one of our queue pairs (the values the handshake
/// carries, without its framing).
struct QpAddress {
  std::uint32_t qp_number = 0;
  std::uint32_t packet_sequence = 0;
  std::uint16_t lid = 0;
  Gid gid{};
  std::uint32_t mtu_bytes = 0;
  std::uint8_t read_responders = 0;
};

/// --load-qps: the background load's queue pairs and what only they use,
/// apart from the latency's so that the latency thread never touches them.
/// Members tear down bottom-up: QPs, then registrations, buffers and the CQ.
struct LoadQueues {
  CompletionQueue cq;  ///< every load QP's completions, both directions
  Buffer local_buffer;     ///< our load writes' source, our load reads' sink
  Buffer exposed_buffer;   ///< what the peer's load touches
  MemoryRegion local_mr;
  MemoryRegion exposed_mr;
  std::vector<QueuePair> qps;  ///< plan.load.queue_pairs of them
  RemoteBuffer remote;         ///< the peer's exposed load buffer
};

/// The move-only owner of one run's verbs objects. The control path opens
/// or adopts the device, makes the plan, creates the queues and connects
/// them with the addresses it exchanged; the loops read it through a const
/// reference.
class Connection {
 public:
  explicit Connection(std::unique_ptr<MemoryProvider> memory = nullptr);
  Connection(Connection&&) = default;
  Connection& operator=(Connection&&) = delete;
  ~Connection();

  /// The device this side opened by name (the attribute-exchange method).
  void use_device(Context context, PortAttributes port, Transport transport);
  /// The device rdma_cm routed to; its first id owns the context.
  void use_cm_device(ibv_context* context, PortAttributes port, Transport transport);

  /// PD, CQs, buffers and MRs: what every QP shares. Keeps `plan`.
  void create_shared(ConnectionPlan plan);
  /// One more QP of plan.qp_type on the shared CQs (on `cm_id` with
  /// rdma_cm, else plain). The first QP settles the inline size.
  void add_queue_pair(rdma_cm_id* cm_id);
  /// The load's CQ, buffers and registrations; nothing without a load.
  void create_load();
  /// One more load queue pair, RC on the load's CQ (on `cm_id` with rdma_cm).
  void add_load_queue_pair(rdma_cm_id* cm_id);
  /// create_shared, create_load and every QP, for the attribute-exchange method.
  void create_all(ConnectionPlan plan);

  /// How the peer reaches QP `index` (load QP `index` with `load`).
  QpAddress address_of(std::size_t index, bool load = false) const;
  /// Moves QP `index` to RTS towards `peer` (the attribute-exchange method).
  void connect_qp(std::size_t index, const QpAddress& peer);
  /// The same for load QP `index`: RC, with the load's access flags.
  void connect_load_qp(std::size_t index, const QpAddress& peer);
  /// rdma_cm: the path MTU its route gave the first QP.
  void read_cm_path_mtu();
  /// rdma_cm: the family (AF_INET, AF_INET6) of the address the first id
  /// connected from, which says the IP an iWARP connection carries (its GID
  /// is the MAC); empty without rdma_cm.
  std::optional<int> cm_ip_family() const;
  /// Lowers what we promise and ask for reads to what the peer offers.
  void limit_reads(std::uint8_t peer_responders, std::uint8_t peer_initiators);
  /// Connection parameters for rdma_connect/rdma_accept.
  rdma_conn_param cm_parameters() const;
  /// -g, server: joins `group` (as multicast_gid_for gives it for this
  /// port's link layer) through rdma_cm within `timeout`, and attaches
  /// every QP to it; sets `multicast` and `multicast_group`.
  void join_multicast(const Gid& group, std::chrono::milliseconds timeout);

  // Teardown runs bottom-up (reverse of declaration): memory regions before
  // their buffers, the QP before its CQ and PD, the CQs before their
  // completion channel, all verbs objects before the context, the rdma_cm id
  // (which may own the context) after them, and the event channel last.
  // ~Connection disconnects the rdma_cm ids first.
  EventChannel cm_events;
  std::vector<CmId> cm_ids;        ///< with rdma_cm: one connection per QP, then per load QP
  std::size_t cm_established = 0;  ///< how many of cm_ids were connected
  Context owned_context;           ///< set when the device was opened by name
  ibv_context* context = nullptr;
  PortAttributes port;
  Transport transport;
  ConnectionPlan plan;
  ProtectionDomain pd;
  /// -e: where both CQs below report completions; null when the loops busy-poll.
  CompletionChannel completion_channel;
  CompletionQueue cq;       ///< completions of our sends, writes and reads
  CompletionQueue recv_cq;  ///< completions of our posted receives
  SharedReceiveQueue srq;   ///< --use-srq: every QP's receives; destroyed after the QPs
  std::vector<QueuePair> qps;            ///< plan.queue_pairs of them; latency loops use one
  std::vector<AddressHandle> peer_ahs;   ///< UD: the route to each peer QP (sends name it)
  std::vector<std::uint32_t> peer_qpns;  ///< UD: each peer QP's number
  /// -g: the server's membership of its group, every QP attached; declared
  /// after `qps`, so that it detaches them and leaves before they go.
  std::unique_ptr<MulticastMembership> multicast;
  /// -g: the group, as the fabric carries it: the one the server joined,
  /// or the one the client sends to (as the server announced it).
  std::optional<Gid> multicast_group;
  std::unique_ptr<MemoryProvider> memory;
  Buffer local_buffer;    ///< what our own work requests use: write source, read destination
  Buffer exposed_buffer;  ///< what the peer's operations touch: write target, read source
  MemoryRegion local_mr;
  MemoryRegion exposed_mr;
  std::vector<std::byte> grh_buffer;  ///< UD: where each receive's 40-byte GRH lands
  MemoryRegion grh_mr;
  LoadQueues load;  ///< empty without --load-qps
  RegistrationPath registration = RegistrationPath::host;  ///< how both buffers were registered

  RemoteBuffer remote;         ///< the peer's exposed buffer
  std::string remote_memory;   ///< its kind, as the peer named it
  std::uint32_t path_mtu_bytes = 0;
  /// The GRH the first QP's packets carry, once connected by attribute
  /// exchange on a route with a GRH; empty otherwise (rdma_cm's is the kernel's).
  std::optional<GrhFields> grh;
  std::uint32_t max_inline = 0;
  std::string inline_reason;  ///< why max_inline is what it is
  bool relaxed_local = false;    ///< local_buffer was registered with relaxed ordering
  bool relaxed_exposed = false;  ///< exposed_buffer was registered with relaxed ordering
  std::uint32_t local_psn = 0;       ///< every QP starts its sends here
  std::uint8_t read_depth = 0;       ///< RDMA reads we may have outstanding (initiator depth)
  std::uint8_t read_responders = 0;  ///< reads we accept outstanding (responder resources)
};

}  // namespace rdmabench
