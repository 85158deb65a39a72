// What the handshake carries of a Connection: our queue pairs' addresses
// and exposed buffers out, the peer's in (checked against the test).
#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"
#include "control/connection_plan.hpp"
#include "control/session_internal.hpp"

namespace rdmabench::detail {

ConnectionPlan plan_for(const Session& s, const QpOptions& options) {
  const Connection& c = s.connection;
  check_device_can_run(s.spec, c.context);
  return plan_connection(s.spec, s.role, options, c.port, c.transport, query_device_limits(c.context),
                         c.memory->cpu_accessible());
}

namespace {

/// The queue pair's address, between the wire's Endpoint and the
/// Connection's QpAddress (the fields have the same names in both).
template <typename From, typename To>
void copy_qp_address(const From& from, To& to) {
  to.qp_number = from.qp_number;
  to.packet_sequence = from.packet_sequence;
  to.lid = from.lid;
  to.gid = from.gid;
  to.mtu_bytes = from.mtu_bytes;
  to.read_responders = from.read_responders;
}

}  // namespace

wire::Endpoint local_endpoint(const Session& s, std::size_t index, bool load) {
  const Connection& c = s.connection;
  wire::Endpoint e;
  copy_qp_address(c.address_of(index, load), e);
  if (!load && index == 0) announce_multicast_group(c, e);
  const MemoryRegion& mr = load ? c.load.exposed_mr : c.exposed_mr;
  const Buffer& buffer = load ? c.load.exposed_buffer : c.exposed_buffer;
  e.rkey = mr->rkey;
  e.address = reinterpret_cast<std::uint64_t>(buffer.data());
  e.length = buffer.size();
  e.memory = c.memory->name();
  return e;
}

QpAddress qp_address(const wire::Endpoint& peer) {
  QpAddress a;
  copy_qp_address(peer, a);
  return a;
}

void adopt_remote(Session& s, const wire::Endpoint& peer, bool load) {
  Connection& c = s.connection;
  if (load) {
    require(peer.length >= s.spec.load_size,
            fmt::format("the peer's load buffer holds {} bytes, --load-size asks for {}", peer.length,
                        s.spec.load_size));
    c.load.remote = RemoteBuffer{peer.address, peer.rkey, peer.length};
    return;
  }
  require(peer.length >= largest_size(s.spec),
          fmt::format("the peer's buffer holds {} bytes, the test needs {}", peer.length, largest_size(s.spec)));
  c.remote = RemoteBuffer{peer.address, peer.rkey, peer.length};
  c.remote_memory = peer.memory;
}

}  // namespace rdmabench::detail
