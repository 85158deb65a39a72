#pragma once
// Steps of building a Session, shared by the client and server paths.

#include "rdmabench/control/session.hpp"
#include "rdmabench/control/wire.hpp"

namespace rdmabench::detail {

/// Latency loops signal one message in kLatencySignalEvery (and the last).
/// They look for its completion right after the post, while the peer's
/// answer is on its way, and otherwise reap it just before the next
/// signaled post. Every message is signaled, as perftest does: siw's zero-copy path for
/// unsignaled messages of a page or more is slow over loopback
/// (docs/methodology.md#selective-signaling). The send
/// queue holds two batches, so a post never finds it full.
inline constexpr std::uint32_t kLatencySignalEvery = 1;
inline constexpr std::uint32_t kLatencySendDepth = 2 * kLatencySignalEvery;
static_assert(kLatencySendDepth >= 2 * kLatencySignalEvery);

/// The fabric rules that follow from the options, applied before the hello:
/// iWARP forces rdma_cm (said through `notice`).
void settle_connect_method(TestSpec& spec, const Transport& transport, const std::string& device,
                           const Notice& notice);

/// Refuses a test the device cannot run (atomics where atomic_cap is NONE,
/// as on siw), naming the device, before any connection is made with it.
void check_device_can_run(const TestSpec& spec, ibv_context* context);

/// Checks -m against the port, and says which QP options rdma_cm ignores.
void check_qp_options(const QpOptions& options, const PortAttributes& port, ConnectMethod method,
                      const Notice& notice);

/// Checks the sweep against what the port can carry in one message.
void check_sizes_fit(const TestSpec& spec, const PortAttributes& port);

/// UD carries one packet per message: refuses a size above `mtu_bytes`,
/// naming both. Does nothing for RC and UC.
void check_datagram_sizes(const TestSpec& spec, std::uint32_t mtu_bytes, const std::string& device);

/// PD, CQs, buffers and MRs: what every QP of the session shares.
void create_shared_resources(Session& session);

/// One more QP of spec.qp_type on the shared CQs (on `cm_id` with rdma_cm, else plain).
void add_queue_pair(Session& session, rdma_cm_id* cm_id);

/// create_shared_resources and every QP of the attribute-exchange method.
void create_queues(Session& session);

/// What the peer needs from us to reach QP `index` and our target buffer.
wire::Endpoint local_endpoint(const Session& session, std::size_t index);

/// Moves QP `index` to RTS towards `peer` (the attribute-exchange method).
void connect_qp(Session& session, std::size_t index, const wire::Endpoint& peer);

/// Moves an RC (`reliable`) or UC queue pair to RTS towards `peer`, its
/// remote access `access` (IBV_ACCESS_*): connect_qp's path, which the load
/// queue pairs share.
void connect_paired_qp(Session& session, ibv_qp* qp, bool reliable, int access,
                       const wire::Endpoint& peer);

/// --load-qps (verbs/load_queues.cpp): the load's CQ, buffers and
/// registrations; nothing without a load.
void create_load_resources(Session& session);

/// One more load queue pair, RC on the load's CQ (on `cm_id` with rdma_cm).
void add_load_queue_pair(Session& session, rdma_cm_id* cm_id);

/// What the peer needs to reach load QP `index` and our exposed load buffer.
wire::Endpoint load_endpoint(const Session& session, std::size_t index);

/// Moves load QP `index` to RTS towards `peer` (the attribute-exchange method).
void connect_load_qp(Session& session, std::size_t index, const wire::Endpoint& peer);

/// Records the peer's exposed load buffer.
void adopt_load_remote(Session& session, const wire::Endpoint& peer);

/// Records the peer's target buffer.
void adopt_remote(Session& session, const wire::Endpoint& peer);

/// Reads port and transport of the device rdma_cm chose, and checks it is the
/// one the user named.
void adopt_cm_device(Session& session, const SideConfig& config, const Notice& notice);

/// Waits for one rdma_cm event of type `expected` on `channel`, watching the
/// control connection meanwhile. The caller acks the returned event.
rdma_cm_event* wait_cm_event(rdma_event_channel* channel, rdma_cm_event_type expected,
                             Milliseconds timeout, Bootstrap& control);

/// Connection parameters for rdma_connect/rdma_accept.
rdma_conn_param cm_parameters(const Session& session);

}  // namespace rdmabench::detail
