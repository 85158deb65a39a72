// rdma_cm plumbing: waiting for events and adopting the device it routed to.
#include <fmt/format.h>
#include <poll.h>

#include <cstring>

#include "rdmabench/verbs/device.hpp"
#include "rdmabench/verbs/error.hpp"
#include "control/address.hpp"
#include "control/session_internal.hpp"

namespace rdmabench::detail {

rdma_cm_event* wait_cm_event(rdma_event_channel* channel, rdma_cm_event_type expected,
                             Milliseconds timeout, Bootstrap& control) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<Milliseconds>(deadline -
                                                               std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw Error(fmt::format("timed out after {} ms waiting for rdma_cm event {}",
                              timeout.count(), rdma_event_str(expected)),
                  "is the address the one of an RDMA device on the server (e.g. siw0's IP)?");
    pollfd fds[2] = {{channel->fd, POLLIN, 0}, {control.wait_fd(), POLLIN, 0}};
    const int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 500)));
    if (n < 0 && errno != EINTR) throw_system_error("poll", errno);
    if (n <= 0) continue;
    if (fds[1].revents) {
      // The peer only writes on the control channel now to give up.
      std::string reason;
      if (control.check_peer(reason) != PeerState::alive)
        throw Error("peer " + control.peer_name() + " gave up during rdma_cm setup: " +
                    (reason.empty() ? "it closed the connection" : reason));
    }
    if (!fds[0].revents) continue;
    rdma_cm_event* event = nullptr;
    if (rdma_get_cm_event(channel, &event) != 0) throw_system_error("rdma_get_cm_event", errno);
    if (event->event == expected) return event;
    const auto got = event->event;
    const int status = event->status;
    rdma_ack_cm_event(event);
    throw Error(fmt::format("rdma_cm: expected {}, got {} (status {}{})", rdma_event_str(expected),
                            rdma_event_str(got), status,
                            status < 0 ? std::string(": ") + std::strerror(-status) : ""),
                got == RDMA_CM_EVENT_REJECTED || got == RDMA_CM_EVENT_UNREACHABLE
                    ? "the peer refused or could not be reached over rdma_cm; is -R given on "
                      "both sides and does the address belong to an RDMA device?"
                    : "");
  }
}

void resolve_cm_address(rdma_cm_id* id, const sockaddr* server, const std::string& server_name,
                        const std::string& source_address, int timeout_ms) {
  // A port TCP found free can still be one that rdma_cm's own space holds
  // (another rdma_cm user of this host): then ask TCP for another.
  constexpr int kTries = 8;
  int error = 0;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    auto source = free_tcp_source(server->sa_family, source_address);
    if (rdma_resolve_addr(id, reinterpret_cast<sockaddr*>(&source), const_cast<sockaddr*>(server),
                          timeout_ms) == 0)
      return;
    error = errno;
    if (error != EADDRINUSE) break;
  }
  throw_system_error("rdma_resolve_addr(" + server_name + ")", error);
}

void adopt_cm_device(Session& s, const SideConfig& config, const Notice& notice) {
  Connection& c = s.connection;
  rdma_cm_id* first = c.cm_ids.front().get();
  require(first->verbs != nullptr, "rdma_cm resolved the address to no RDMA device");
  const std::string name = ibv_get_device_name(first->verbs->device);
  if (!config.device.empty() && name != config.device)
    throw Error(fmt::format("rdma_cm routed this connection through {}, but -d {} was given",
                            name, config.device),
                "connect to an IP address of " + config.device + "'s network interface");
  PortAttributes port = query_port(first->verbs, first->port_num);
  Transport transport = resolve_transport(port, std::nullopt, AddressFamily::ipv4);
  // rdma_cm picks the source GID from the IP route; report that one.
  const auto& sgid = first->route.addr.addr.ibaddr.sgid;
  for (const auto& g : port.gids) {
    if (std::memcmp(g.gid.data(), sgid.raw, 16) == 0) {
      transport.gid = g;
      transport.kind = classify(port, g);
      break;
    }
  }
  transport.gid_reason = config.source_address.empty()
                             ? "chosen by rdma_cm from the IP route"
                             : fmt::format("chosen by rdma_cm from the IP route from {}, the bound source address",
                                           config.source_address);
  if (config.gid_index) notice("-x/--gid-index is ignored with rdma_cm, which picks the GID itself");
  check_sizes_fit(s.spec, port);
  c.use_cm_device(first->verbs, std::move(port), std::move(transport));
}

}  // namespace rdmabench::detail
