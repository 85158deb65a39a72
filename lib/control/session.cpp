// The handshake: how a client and a server agree on a test and connect.
//
//   client                         server
//   Hello(spec)           ---->    checks for conflicts, adopts the spec
//                         <----    Barrier 0 (accepted) or Reject(reason)
//   [rdma_cm connect]     <--->    [rdma_cm accept]   (only with -R / iWARP; one per QP,
//                                                      the load's after the latency's)
//   Endpoint              <--->    Endpoint           (QP address, target buffer)
//   [Endpoint per load QP] <--->   [Endpoint ...]     (--load-qps: load QP, load buffer)
//   [QP to RTR/RTS]                [QP to RTR/RTS]    (only without rdma_cm)
//   Barrier 1             <--->    Barrier 1          (both QPs ready)
#include "rdmabench/control/session.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/verbs/device.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/multicast_group.hpp"
#include "rdmabench/verbs/provider_environment.hpp"
#include "control/address.hpp"
#include "control/connection_plan.hpp"
#include "control/hello_arrival.hpp"
#include "control/session_internal.hpp"
#include "control/inline_size.hpp"
#include "control/notice_limiter.hpp"
#include "control/route_source.hpp"
#include "memory/memory_policy.hpp"
#include "memory/memory_budget.hpp"
#include "system/interrupt_timer.hpp"
#include "system/pause_points.hpp"

namespace rdmabench {

using namespace detail;

Session::Session(Role r, std::unique_ptr<Bootstrap> p, TestSpec s, Milliseconds t,
                 std::unique_ptr<MemoryProvider> memory)
    : role(r), spec(std::move(s)), peer(std::move(p)), timeout(t), connection(std::move(memory)) {}

namespace {

constexpr std::uint32_t kAcceptedBarrier = 0;
/// How long a connected client may take to say hello (it says it at once).
constexpr Milliseconds kHelloDeadline{3000};
constexpr std::uint32_t kConnectedBarrier = 1;

/// Endpoint exchange (one per connection, in order) and the final barrier,
/// common to both roles. `named_group`: -M, which a multicast client checks
/// the server's group against.
void finish_handshake(Session& s, const std::optional<Gid>& named_group) {
  Connection& c = s.connection;
  // One endpoint per agreed QP; a multicast server's receivers beyond the
  // first announce nothing (the first announces the group) and only ever
  // answer the client's first QP.
  std::optional<QpAddress> first_peer;
  for (std::size_t q = 0; q < s.spec.queue_pairs; ++q) {
    const auto peer = s.peer->exchange(local_endpoint(s, q), s.timeout, "endpoint");
    check_peer_endpoint(s, peer, named_group);
    if (c.cm_ids.empty()) {
      if (auto mismatch = gid_family_mismatch(c.transport, peer.gid)) throw Error(*mismatch);
      c.connect_qp(q, qp_address(peer));
    }
    if (q == 0) {
      adopt_remote(s, peer);
      first_peer = qp_address(peer);
    }
  }
  for (std::size_t q = s.spec.queue_pairs; q < c.qps.size() && first_peer; ++q) c.connect_qp(q, *first_peer);
  // Then the load's (--load-qps), each carrying the peer's load buffer.
  for (std::size_t q = 0; q < c.load.qps.size(); ++q) {
    const auto peer = s.peer->exchange(local_endpoint(s, q, /*load=*/true), s.timeout, "load endpoint");
    if (c.cm_ids.empty()) {
      if (auto mismatch = gid_family_mismatch(c.transport, peer.gid)) throw Error(*mismatch);
      c.connect_load_qp(q, qp_address(peer));
    }
    if (q == 0) adopt_remote(s, peer, /*load=*/true);
  }
  if (!c.cm_ids.empty()) c.read_cm_path_mtu();
  s.peer->barrier(kConnectedBarrier, s.timeout);
}

/// The attribute-exchange method: the connection takes the device this
/// side opened and checked, and makes every QP on it.
void create_exchanged_queues(Session& s, const QpOptions& options, Context context, PortAttributes port,
                             Transport transport) {
  s.connection.use_device(std::move(context), std::move(port), std::move(transport));
  s.connection.create_all(plan_for(s, options));
}

/// rdma_cm's first connection decided the device: the shared resources and
/// the load's go up on it.
void create_cm_shared(Session& s, const SideConfig& config, const Notice& notice) {
  adopt_cm_device(s, config, notice);
  s.connection.create_shared(plan_for(s, config.qp));
  s.connection.create_load();
}

/// Makes the queue pairs with `make` (rdma_cm or attribute exchange), then
/// finishes the handshake; a failure is told to the peer before it is thrown.
template <typename Make>
void connect_queues(Session& s, const SideConfig& config, Make make) {
  try {
    pause_point("handshake");
    make();
    finish_handshake(s, config.multicast_group);
  } catch (const Error& e) {
    s.peer->try_abort(e.what());
    throw;
  }
}

/// The address family the server is reached by (for the GID choice).
AddressFamily family_of(const std::string& host) {
  in6_addr v6;
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 ? AddressFamily::ipv6 : AddressFamily::ipv4;
}

/// The device a client opens: -d's, else with --source-ip the one whose
/// port holds that address (its GID must be that address's), else the first.
std::string client_device(const SideConfig& config) {
  if (!config.device.empty() || config.source_address.empty()) return config.device;
  const auto gid = gid_of_address(config.source_address);
  return gid ? device_holding_gid(*gid, config.port) : std::string{};
}

/// This side's buffers, and what their kind rules out before any device is
/// opened: inline sends from memory the CPU cannot read, and the provider's
/// CPU copies of small receives into it.
std::unique_ptr<MemoryProvider> prepare_side_memory(const SideConfig& config, const TestSpec& spec,
                                                    const Notice& notice) {
  auto memory = prepare_memory(config.memory, spec);
  check_inline_request(config.qp.inline_bytes, memory->cpu_accessible(), memory->name(), spec);
  keep_receive_copies_off_the_cpu(memory->cpu_accessible(), notice);
  return memory;
}

/// The server's transport for a client reached from `client_host` that
/// connected to `local_host`: without -x its GID is the GID of the address
/// the client connected to (else of the route's source towards the client),
/// else a RoCEv2 GID of the client's address family.
Transport transport_for(const PortAttributes& port, const SideConfig& config, const Transport& chosen,
                        const std::string& client_host, const std::string& local_host, const Notice& notice) {
  if (config.gid_index) return chosen;
  Transport t = resolve_transport(port, std::nullopt, family_of(client_host),
                                  server_gid_source(local_host, client_host));
  if (!t.gid_warning.empty()) notice(t.gid_warning);
  return t;
}

/// What a client is told while the server runs for `running_for`.
std::string busy_message(const std::string& running_for) {
  return fmt::format("the server is busy with a run for {}; try again when it has finished", running_for);
}

/// rdma_connect, given up after `timeout`: on iWARP the provider opens its
/// TCP connection inside the call, and a cut link would hold it for the
/// kernel's SYN retries (over two minutes).
void connect_within(rdma_cm_id* id, rdma_conn_param& parameters, Milliseconds timeout) {
  detail::InterruptTimer interrupt(timeout);
  if (rdma_connect(id, &parameters) == 0) return;
  const int error = errno;
  if (error == EINTR && interrupt.fired())
    throw Error(fmt::format("rdma_connect did not complete within {} ms", timeout.count()),
                "the server or the link is down or stuck; raise --timeout if it is merely slow");
  // The control connection reached the server, so a refusal here is its
  // rdma_cm listener's absence at this address: without --bind it listens on
  // IPv4 only (see listen_for_cm).
  throw_system_error("rdma_connect", error,
                     error == ECONNREFUSED
                         ? "the server's rdma_cm listener (its control port + 1) refused this address; "
                           "for an IPv6 address, start the server with --bind and that address"
                         : "");
}

/// The QP of rdma_cm connection `q`: the latency's QPs come first, then
/// the load's (--load-qps).
void add_connection_queue_pair(Session& s, std::uint32_t q, rdma_cm_id* id) {
  if (q < s.spec.queue_pairs)
    s.connection.add_queue_pair(id);
  else
    s.connection.add_load_queue_pair(id);
}

/// rdma_cm routes by the IP route: an address reached through loopback or
/// through an interface without an RDMA device (a management network)
/// resolves, then fails here with ENODEV.
std::string route_failure_hint(int error) {
  if (error != ENODEV && error != ENETUNREACH) return {};
  return "no RDMA device serves the IP route to that address (127.0.0.1, or a network without an "
         "RDMA interface); give the server's address on its RDMA device's network (rdma link show "
         "names each device's interface)";
}

/// One rdma_cm connection per QP, made one after the other: the first
/// decides the device and brings up the shared resources.
void client_cm_connect(Session& s, const SideConfig& config, const Notice& notice) {
  Connection& c = s.connection;
  c.cm_events.reset(rdma_create_event_channel());
  if (!c.cm_events) throw_system_error("rdma_create_event_channel", errno);
  const auto address =
      resolve_address(config.server, static_cast<std::uint16_t>(config.tcp_port + 1));
  const int timeout_ms = static_cast<int>(config.timeout.count());
  const std::uint32_t connections = s.spec.queue_pairs + s.spec.load_queue_pairs;
  for (std::uint32_t q = 0; q < connections; ++q) {
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(c.cm_events.get(), &id, nullptr, RDMA_PS_TCP) != 0)
      throw_system_error("rdma_create_id", errno);
    c.cm_ids.emplace_back(id);
    resolve_cm_address(id, address->ai_addr, config.server, config.source_address, timeout_ms);
    rdma_ack_cm_event(wait_cm_event(c.cm_events.get(), RDMA_CM_EVENT_ADDR_RESOLVED, s.timeout, *s.peer));
    if (config.qp.traffic_class) {
      std::uint8_t tos = config.qp.traffic_class;
      if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof tos) != 0)
        throw_system_error("rdma_set_option(TOS) for --tclass", errno);
    }
    if (rdma_resolve_route(id, timeout_ms) != 0)
      throw_system_error("rdma_resolve_route to " + config.server, errno, route_failure_hint(errno));
    rdma_ack_cm_event(wait_cm_event(c.cm_events.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, s.timeout, *s.peer));

    if (q == 0) create_cm_shared(s, config, notice);
    require(id->verbs == c.context, "rdma_cm routed two connections through different devices");
    add_connection_queue_pair(s, q, id);
    auto parameters = c.cm_parameters();
    connect_within(id, parameters, s.timeout);
    rdma_ack_cm_event(wait_cm_event(c.cm_events.get(), RDMA_CM_EVENT_ESTABLISHED, s.timeout, *s.peer));
    ++c.cm_established;
  }
}

}  // namespace

Session connect_to_server(const SideConfig& config, TestSpec spec, const Notice& notice) {
  require(!config.server.empty(), "no server address given");
  return connect_over(config, std::move(spec), notice, [&] {
    return std::make_unique<ControlChannel>(
        connect_control(config.server, config.tcp_port, config.timeout, config.source_address));
  });
}

Session connect_over(const SideConfig& config, TestSpec spec, const Notice& notice,
                     const std::function<std::unique_ptr<Bootstrap>()>& reach_server) {
  check_grh_options(config.qp, spec.connect, nullptr);
  auto memory = prepare_side_memory(config, spec, notice);
  Context context;
  PortAttributes port;
  Transport transport;
  if (spec.connect == ConnectMethod::tcp_exchange || !config.device.empty()) {
    // Open the device before contacting the server so that a wrong -d, -i or
    // -x fails here, so that iWARP can switch to rdma_cm in the hello, and
    // so that a run this device cannot carry is refused by name here (with
    // -R only when -d names it: otherwise rdma_cm picks the device by route).
    context = open_device(client_device(config));
    port = query_port(context.get(), config.port);
    transport = resolve_transport(port, config.gid_index, family_of(config.server),
                                  client_gid_source(config.server, config.source_address));
    if (!transport.gid_warning.empty()) notice(transport.gid_warning);
    // What the device cannot run at all (UD on iWARP) before what it
    // cannot run at this size.
    check_device_can_run(spec, context.get());
    check_sizes_fit(spec, port);
    check_datagram_sizes(spec, config.qp.mtu_bytes.value_or(port.active_mtu_bytes), port.device);
    settle_connect_method(spec, transport, port.device, notice);
    check_qp_options(config.qp, port, spec.connect, notice);
    check_grh_options(config.qp, spec.connect, &transport);
    if (spec.multicast_receivers && config.multicast_group)
      (void)multicast_gid_for(*config.multicast_group, port.link_layer);
    // The queues this test needs, against this device's limits, before the
    // server is asked (the same plan is made again once connected).
    (void)plan_connection(spec, Role::client, config.qp, port, transport, query_device_limits(context.get()),
                          memory->cpu_accessible());
  } else if (!config.source_address.empty()) {
    // rdma_cm binds it later: a wrong one is named before the server is asked.
    require_host_address(config.source_address);
  }
  // After the device's own limits (which name the device), before connecting.
  if (auto shortfall = find_memory_shortfall(spec, available_memory())) throw Error(*shortfall);
  if (spec.run_id == 0) spec.run_id = new_run_id();
  Session s(Role::client, reach_server(), spec, config.timeout, std::move(memory));
  s.peer->send(wire::Hello{spec});
  const auto accepted = s.peer->receive_expected<wire::Barrier>(config.timeout, "the server's answer to our hello");
  require(accepted.sequence == kAcceptedBarrier, "protocol error: unexpected answer to hello");

  connect_queues(s, config, [&] {
    if (spec.connect == ConnectMethod::rdma_cm)
      client_cm_connect(s, config, notice);
    else
      create_exchanged_queues(s, config.qp, std::move(context), std::move(port), std::move(transport));
  });
  return s;
}

// ------------------------------------------------------------------ server

struct Server::Impl {
  SideConfig config;
  TestSpec spec;
  Notice notice;
  Context context;  ///< opened by name for the exchange method
  /// -R with -d: the named device, kept open only to screen hellos against
  /// (rdma_cm opens its own for each run).
  Context named_device;
  PortAttributes port;
  Transport transport;
  std::unique_ptr<MemoryProvider> memory;  ///< made before listening; the session takes it
  std::optional<ControlListener> listener;
  EventChannel cm_events;
  CmId cm_listener;
  std::string last_refusal;  ///< why screen() last turned a client away
  std::optional<NoticeLimiter> refusals;  ///< the notices of clients turned away, rate-limited

  /// True for the attribute-exchange method, whose runs use the device this
  /// server opened by name.
  bool runs_on_opened_device() const { return spec.connect == ConnectMethod::tcp_exchange; }

  /// The session for the client on `control` (reached from `control_host`,
  /// connected to our `local_host`, empty where unknown), or nullopt when
  /// screen() refused it.
  std::optional<Session> serve(std::unique_ptr<Bootstrap> control, const std::string& control_host,
                               const std::string& local_host);

  void listen_for_cm() {
    cm_events.reset(rdma_create_event_channel());
    if (!cm_events) throw_system_error("rdma_create_event_channel", errno);
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(cm_events.get(), &id, nullptr, RDMA_PS_TCP) != 0)
      throw_system_error("rdma_create_id", errno);
    cm_listener.reset(id);
    // Without --bind, the IPv4 wildcard: siw listens on a v6 wildcard only
    // for IPv6 addresses, so a dual-stack listener would turn every IPv4
    // client away on iWARP.
    auto address = listen_address(config.bind_address, static_cast<std::uint16_t>(config.tcp_port + 1),
                                  /*ipv6_available=*/false);
    if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&address)) != 0)
      throw_system_error(fmt::format("rdma_bind_addr({} port {})",
                                     config.bind_address.empty() ? "every address" : config.bind_address,
                                     config.tcp_port + 1),
                         errno, "rdma_cm uses the control port + 1; is another server using it?");
    if (rdma_listen(id, 8) != 0) throw_system_error("rdma_listen", errno);
  }

  /// The next control connection; nullopt (after telling the user) when
  /// accept itself failed, so that one bad connection never ends the server.
  std::optional<ControlChannel> accept_control() {
    try {
      return listener->accept(Milliseconds(0));
    } catch (const Error& e) {
      (*refusals)(fmt::format("{}; still waiting for a client", e.what()));
      std::this_thread::sleep_for(Milliseconds(100));  // a lasting cause (EMFILE) must not spin
      return std::nullopt;
    }
  }

  /// Connections accepted and not yet screened, each until its hello
  /// deadline: one that stays silent waits here beside the others, so that
  /// silent connections ahead of a real client cannot keep it out.
  struct Waiting {
    ControlChannel channel;
    std::chrono::steady_clock::time_point deadline;
  };
  std::vector<Waiting> waiting;
  /// More silent connections than this, and the server accepts no more
  /// until one speaks or its deadline passes (the kernel's backlog holds them).
  static constexpr std::size_t kMostWaiting = 32;

  /// Turns away, naming the deadline, every waiting connection whose hello
  /// deadline has passed.
  void drop_silent(std::chrono::steady_clock::time_point now) {
    const auto silent = std::stable_partition(waiting.begin(), waiting.end(),
                                              [&](const Waiting& w) { return w.deadline > now; });
    const std::string why = fmt::format("no hello within {} ms", std::min(config.timeout, kHelloDeadline).count());
    for (auto it = silent; it != waiting.end(); ++it) {
      (*refusals)(fmt::format("rejected {}: {}; still waiting for a client", it->channel.peer_name(), why));
      it->channel.try_abort("rejected: " + why);
    }
    waiting.erase(silent, waiting.end());
  }

  /// The next control connection whose hello has arrived whole; silent
  /// and trickling ones are accepted meanwhile and wait (drop_silent).
  ControlChannel next_speaking_client() {
    for (;;) {
      const auto now = std::chrono::steady_clock::now();
      drop_silent(now);
      std::vector<pollfd> fds{{listener->fd(), static_cast<short>(waiting.size() < kMostWaiting ? POLLIN : 0), 0}};
      for (const Waiting& w : waiting) fds.push_back({w.channel.fd(), POLLIN, 0});
      int wait_ms = -1;
      for (const Waiting& w : waiting) {
        const auto left = std::chrono::ceil<Milliseconds>(w.deadline - now).count();
        wait_ms = static_cast<int>(wait_ms < 0 ? left : std::min<long long>(wait_ms, left));
      }
      const int n = ::poll(fds.data(), fds.size(), wait_ms);
      if (n < 0 && errno != EINTR) throw_system_error("poll (waiting for clients)", errno);
      if (n <= 0) continue;
      for (std::size_t i = 1; i < fds.size(); ++i) {
        // A hello begun but not whole (a trickle) waits on, as a silent one.
        if (!fds[i].revents || !first_frame_arrived(fds[i].fd)) continue;
        ControlChannel speaking = std::move(waiting[i - 1].channel);
        waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i - 1));
        return speaking;
      }
      if (fds[0].revents & POLLIN)
        if (auto control = accept_control())
          waiting.push_back({std::move(*control), std::chrono::steady_clock::now() +
                                                      std::min(config.timeout, kHelloDeadline)});
    }
  }

  /// The connections still waiting when a run begins: this server runs one
  /// client at a time, so they are told it is busy, as later ones are.
  void turn_away_waiting(const std::string& running_for) {
    const std::string why = busy_message(running_for);
    for (Waiting& w : waiting) {
      (*refusals)(fmt::format("refused {}: {}", w.channel.peer_name(), why));
      try {
        w.channel.send(wire::Reject{why});
      } catch (const Error&) {
        // It left already.
      }
    }
    waiting.clear();
  }

  /// Reads the hello; nullopt (after telling the user) for a bad peer. A
  /// client sends it as soon as it connects: one that stays silent longer
  /// than kHelloDeadline is turned away, so it cannot hold the server.
  std::optional<TestSpec> read_hello(Bootstrap& control) {
    try {
      return control.receive_expected<wire::Hello>(std::min(config.timeout, kHelloDeadline), "hello").spec;
    } catch (const Error& e) {
      (*refusals)(fmt::format("rejected {}: {}; still waiting for a client", control.peer_name(), e.what()));
      control.try_abort(std::string("rejected: ") + e.what());
      return std::nullopt;
    }
  }

  /// Turns a client away: tells it why (if it still listens) and the user.
  std::nullopt_t refuse(Bootstrap& control, const std::string& why) {
    last_refusal = why;
    (*refusals)(fmt::format("refused {}: {}; still waiting for a client", control.peer_name(), why));
    try {
      control.send(wire::Reject{why});
    } catch (const Error&) {
      // It left already; the user has been told.
    }
    return std::nullopt;
  }

  /// The device this server will run on, before any client's run: the one
  /// it opened (the exchange method, or -R with -d), else the one rdma_cm
  /// bound the listener to (-R with --bind); null when rdma_cm decides per
  /// connection (-R with neither): then a run the device cannot carry fails
  /// after the hello, the client is told why, and the server serves on.
  ibv_context* screening_device() const {
    if (context) return context.get();
    if (named_device) return named_device.get();
    return cm_listener ? cm_listener->verbs : nullptr;
  }

  /// Throws unless this device can carry `adopted`: sizes, UD MTU, and the
  /// queues its plan needs (depths, CQ entries, QPs), as the run would
  /// create them after the hello.
  void screen_against_device(const TestSpec& adopted) const {
    ibv_context* device = screening_device();
    if (!device) return;
    const bool named = context || named_device;  // port and transport were resolved for it
    const PortAttributes device_port = named ? port : query_port(device, cm_listener->port_num);
    const Transport device_transport =
        named ? transport : resolve_transport(device_port, std::nullopt, AddressFamily::ipv4);
    check_device_can_run(adopted, device);
    check_sizes_fit(adopted, device_port);
    check_datagram_sizes(adopted, config.qp.mtu_bytes.value_or(device_port.active_mtu_bytes), device_port.device);
    (void)plan_connection(adopted, Role::server, config.qp, device_port, device_transport,
                          query_device_limits(device),
                          !memory || memory->cpu_accessible());
  }

  /// The spec to run for the client on `control`, or nullopt after refusing
  /// it: a bad hello, a conflict with this server's options, or a run this
  /// device or host cannot hold.
  std::optional<TestSpec> screen(Bootstrap& control) {
    const auto hello = read_hello(control);
    if (!hello) return std::nullopt;
    if (auto conflict = find_conflict(spec, *hello)) return refuse(control, *conflict);
    TestSpec adopted = adopt_client_choice(spec, *hello);
    try {
      screen_against_device(adopted);
    } catch (const Error& e) {
      return refuse(control, std::string("server side: ") + e.what());
    }
    if (auto shortfall = find_memory_shortfall(adopted, available_memory()))
      return refuse(control, "server side: " + *shortfall);
    return adopted;
  }

  /// The next rdma_cm connection request from the control peer's host; any
  /// other host's request is rejected (it may not take this run's QPs).
  rdma_cm_event* next_request_from(const std::string& control_host, Session& s) {
    for (;;) {
      auto* request = wait_cm_event(cm_events.get(), RDMA_CM_EVENT_CONNECT_REQUEST, config.timeout, *s.peer);
      const std::string from = numeric_host(rdma_get_peer_addr(request->id));
      if (control_host.empty() || from == control_host) return request;
      (*refusals)(fmt::format("refused an rdma_cm connection from {}: this run belongs to {}", from,
                         s.peer->peer_name()));
      rdma_cm_id* stranger = request->id;
      rdma_reject(stranger, nullptr, 0);
      rdma_ack_cm_event(request);
      rdma_destroy_id(stranger);
    }
  }

  /// Accepts the client's connections, one per QP, in the order it makes
  /// them; the first brings up the shared resources.
  void cm_accept(Session& s, const std::string& control_host) {
    Connection& c = s.connection;
    // The connections get their own event channel, so that they outlive ours.
    c.cm_events.reset(rdma_create_event_channel());
    if (!c.cm_events) throw_system_error("rdma_create_event_channel", errno);
    const std::uint32_t connections = s.spec.queue_pairs + s.spec.load_queue_pairs;
    for (std::uint32_t q = 0; q < connections; ++q) {
      auto* request = next_request_from(control_host, s);
      rdma_cm_id* id = request->id;
      const rdma_conn_param asked = request->param.conn;
      rdma_ack_cm_event(request);
      c.cm_ids.emplace_back(id);
      if (rdma_migrate_id(id, c.cm_events.get()) != 0) throw_system_error("rdma_migrate_id", errno);
      if (q == 0) create_cm_shared(s, config, notice);
      require(id->verbs == c.context, "rdma_cm routed two connections through different devices");
      add_connection_queue_pair(s, q, id);
      c.limit_reads(asked.responder_resources, asked.initiator_depth);
      auto parameters = c.cm_parameters();
      if (rdma_accept(id, &parameters) != 0) throw_system_error("rdma_accept", errno);
      rdma_ack_cm_event(wait_cm_event(c.cm_events.get(), RDMA_CM_EVENT_ESTABLISHED, config.timeout, *s.peer));
      ++c.cm_established;
    }
  }
};

Server::Server(SideConfig config, TestSpec spec, Notice notice)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.config = std::move(config);
  m.spec = std::move(spec);
  m.notice = std::move(notice);
  m.refusals.emplace(m.notice);
  check_grh_options(m.config.qp, m.spec.connect, nullptr);
  m.memory = prepare_side_memory(m.config, m.spec, m.notice);
  if (m.spec.connect == ConnectMethod::tcp_exchange || !m.config.device.empty()) {
    // Validate what the user named now, not when a client turns up.
    m.context = open_device(m.config.device);
    m.port = query_port(m.context.get(), m.config.port);
    m.transport = resolve_transport(m.port, m.config.gid_index, AddressFamily::ipv4);
    check_device_can_run(m.spec, m.context.get());
    settle_connect_method(m.spec, m.transport, m.port.device, m.notice);
    check_qp_options(m.config.qp, m.port, m.spec.connect, m.notice);
    check_grh_options(m.config.qp, m.spec.connect, &m.transport);
    // A group this fabric cannot join is refused before any client comes.
    if (m.spec.multicast_receivers) (void)multicast_group_to_join(m.config, m.port.link_layer);
    if (m.spec.connect == ConnectMethod::rdma_cm)
      m.named_device = std::move(m.context);  // rdma_cm brings its own
  }
  if (m.config.listen_for_control) m.listener.emplace(m.config.tcp_port, m.config.timeout, m.config.bind_address);
  if (m.spec.connect == ConnectMethod::rdma_cm) m.listen_for_cm();
}

Server::~Server() = default;

Server::TurnAway::TurnAway(ControlListener& listener, std::string message, Notice notice)
    : listener_(listener), message_(std::move(message)), notice_(std::move(notice)),
      thread_([this] { run(); }) {}

Server::TurnAway::~TurnAway() {
  stop_ = true;
  thread_.join();
}

void Server::TurnAway::run() {
  // Off the CPU --cpu pinned the timed loop to (this thread inherited it).
  leave_a_pinned_cpu();
  NoticeLimiter refusals(notice_);
  while (!stop_) {
    try {
      if (!listener_.has_client(Milliseconds(100))) continue;
      auto control = listener_.accept(Milliseconds(0));
      refusals(fmt::format("refused {}: {}", control.peer_name(), message_));
      control.send(wire::Reject{message_});
    } catch (const Error&) {
      // That one went away, or accept failed: the run goes on regardless.
    }
  }
}

std::unique_ptr<Server::TurnAway> Server::turn_away_while_busy(const std::string& running_for) {
  require(impl_->listener.has_value(), "a server without a control listener has nobody to turn away");
  return std::make_unique<TurnAway>(
      *impl_->listener,
      busy_message(running_for), impl_->notice);
}

std::optional<Session> Server::Impl::serve(std::unique_ptr<Bootstrap> control, const std::string& control_host,
                                           const std::string& local_host) {
  auto adopted = screen(*control);
  if (!adopted) return std::nullopt;
  control->send(wire::Barrier{kAcceptedBarrier});

  std::unique_ptr<MemoryProvider> session_memory;
  try {
    // The device goes to the session; a later client's run opens it again.
    if (!context && runs_on_opened_device()) {
      context = open_device(config.device);
      port = query_port(context.get(), config.port);
    }
    session_memory = memory ? std::move(memory) : prepare_memory(config.memory, *adopted);
  } catch (const Error& e) {
    control->try_abort(e.what());  // accepted: the client hears why its run ends
    throw;
  }
  Session s(Role::server, std::move(control), std::move(*adopted), config.timeout, std::move(session_memory));
  connect_queues(s, config, [&] {
    if (s.spec.connect == ConnectMethod::rdma_cm) {
      cm_accept(s, control_host);
      return;
    }
    create_exchanged_queues(s, config.qp, std::move(context), port,
                            transport_for(port, config, transport, control_host, local_host, notice));
    // Before the endpoints: the first announces the group.
    if (s.spec.multicast_receivers) join_multicast_group(s, config);
  });
  return s;
}

Session Server::accept_client() {
  Impl& m = *impl_;
  require(m.listener.has_value(), "this server takes its clients through accept_over()");
  for (;;) {
    auto control = m.next_speaking_client();
    const std::string control_host = control.peer_host();
    const std::string local_host = control.local_host();
    const std::string who = control.peer_name();
    try {
      if (auto session = m.serve(std::make_unique<ControlChannel>(std::move(control)), control_host, local_host)) {
        m.turn_away_waiting(who);
        return std::move(*session);
      }
    } catch (const Error& e) {
      // Accepted, then failed (connect, endpoint, resources): that client's
      // run ends, and it has been told why; the server serves the next.
      m.notice(fmt::format("the run for {} failed: {}; still waiting for a client", who, e.what()));
    }
  }
}

Session Server::accept_over(std::unique_ptr<Bootstrap> peer, const std::string& peer_host) {
  const std::string who = peer->peer_name();
  if (auto session = impl_->serve(std::move(peer), peer_host, {})) return std::move(*session);
  throw Error(fmt::format("refused {}: {}", who, impl_->last_refusal));
}

}  // namespace rdmabench
