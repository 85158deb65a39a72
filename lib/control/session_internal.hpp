#pragma once
// Steps of building a Session, shared by the client and server paths.

#include "rdmabench/control/session.hpp"
#include "rdmabench/control/wire.hpp"

namespace rdmabench::detail {

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

/// The plan for the session's spec on the device its connection uses
/// (check_device_can_run first).
ConnectionPlan plan_for(const Session& session, const QpOptions& options);

/// What the peer needs from us to reach QP `index` and our target buffer
/// (with `load`, load QP `index` and our exposed load buffer).
wire::Endpoint local_endpoint(const Session& session, std::size_t index, bool load = false);

/// The queue pair address an endpoint carries.
QpAddress qp_address(const wire::Endpoint& peer);

/// Records the peer's target buffer (with `load`, its exposed load buffer),
/// refusing one too small for the test.
void adopt_remote(Session& session, const wire::Endpoint& peer, bool load = false);

/// -g/--mcg: the group a server joins, as its link layer joins it: -M's
/// (--mgid) or the default for its control port. Throws an Error when this
/// fabric cannot join the group -M names.
Gid multicast_group_to_join(const SideConfig& config, LinkLayer link_layer);

/// -g/--mcg, server: joins the group and attaches every receiving QP.
void join_multicast_group(Session& session, const SideConfig& config);

/// -g/--mcg, server: the endpoint of its first QP names the group instead
/// (the multicast QP number, the group's GID and LID); else unchanged.
void announce_multicast_group(const Connection& connection, wire::Endpoint& endpoint);

/// Checks the QP address the peer announced before anything is connected
/// to it: a QP number of 24 bits; from the server of a multicast run, its
/// group, one this side can send to, and the one -M (`named_group`) names
/// if given (then recorded as the connection's multicast_group).
void check_peer_endpoint(Session& session, const wire::Endpoint& peer, const std::optional<Gid>& named_group);

/// Reads port and transport of the device rdma_cm chose, and checks it is the
/// one the user named.
void adopt_cm_device(Session& session, const SideConfig& config, const Notice& notice);

/// rdma_resolve_addr of `id` towards `server` (named `server_name` in
/// errors), from `source` (empty: the route's address) and a port TCP
/// holds nowhere on this host (free_tcp_source); the caller waits for
/// ADDR_RESOLVED.
void resolve_cm_address(rdma_cm_id* id, const sockaddr* server, const std::string& server_name,
                        const std::string& source, int timeout_ms);

/// Waits for one rdma_cm event of type `expected` on `channel`, watching the
/// control connection meanwhile. The caller acks the returned event.
rdma_cm_event* wait_cm_event(rdma_event_channel* channel, rdma_cm_event_type expected,
                             Milliseconds timeout, Bootstrap& control);

}  // namespace rdmabench::detail
