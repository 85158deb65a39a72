#pragma once
/// @file
/// One side of a run: the role, the spec both sides agreed, the control
/// channel to the peer, and the Connection that holds the verbs objects.
/// Building one is the whole control path: device, transport, control
/// handshake, QP connection (by attribute exchange or rdma_cm), memory
/// registration.

#include <chrono>
#include <cstdint>
#include <atomic>
#include <functional>
#include <thread>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/pacing/pacing.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/control/role.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/memory/memory.hpp"
#include "rdmabench/verbs/connection.hpp"

namespace rdmabench {

/// Library-level settings of one side (bench/ maps command-line options here).
struct SideConfig {
  std::string device;                      ///< empty: the first device / rdma_cm's route
  std::uint8_t port = 1;
  std::optional<std::uint32_t> gid_index;  ///< empty: chosen by the transport layer
  MemoryChoice memory;                     ///< --mem, --cuda-bus-id, --gdr
  std::uint16_t tcp_port = 18515;          ///< control port; rdma_cm listens on tcp_port + 1
  Milliseconds timeout{10000};
  std::string server;                      ///< client only: the server's address
  std::string bind_address;                ///< server only: listen here alone; empty: every address
  /// Client only: rdma_cm's source address (a numeric address of this
  /// host); empty: the route's. A server that knows its partner's address
  /// (rdma_sweep) accepts rdma_cm requests from it alone.
  std::string source_address;
  /// Server only: listen on tcp_port for control connections. False when a
  /// launcher brings each client's channel instead (Server::accept_over).
  bool listen_for_control = true;
  QpOptions qp;
  /// -M/--mgid, with -g: the group a multicast server joins (default:
  /// default_multicast_gid), and the one its client expects to be told.
  std::optional<Gid> multicast_group;
};

/// Progress messages for the user ("siw0 is iWARP: using rdma_cm").
using Notice = std::function<void(const std::string&)>;

class Session {
 public:
  /// `peer` is how this side reaches the other out of band; `memory` is
  /// made before connecting (a missing GPU driver is reported first).
  Session(Role role, std::unique_ptr<Bootstrap> peer, TestSpec spec, Milliseconds timeout,
          std::unique_ptr<MemoryProvider> memory);
  Session(Session&&) = default;

  Role role;
  const TestSpec spec;  ///< as both sides agreed in the handshake; never changed after
  /// Client, --rate: the latency loop runs open loop on this schedule.
  std::optional<Pacing> pacing;
  std::unique_ptr<Bootstrap> peer;  ///< the out-of-band path to the other side
  Milliseconds timeout{10000};      ///< the longest wait for the peer
  /// Bandwidth tests: the length of each interval of bandwidth over time
  /// (--interval); 0 keeps no intervals. This side's choice alone.
  Milliseconds interval{100};
  /// The verbs objects; declared last, so torn down before the channel
  /// that would tell the peer why.
  Connection connection;
};

/// Validates the server's device, port and GID before any client arrives,
/// listens, and hands out one Session per well-behaved client.
class Server {
 public:
  Server(SideConfig config, TestSpec spec, Notice notice);
  ~Server();
  /// Waits for a client with a valid hello. A peer that sends garbage, says
  /// nothing, asks for a test this server does not run or for values out of
  /// range, or for more than this device or host can hold, is refused (told
  /// why when possible, reported through Notice) and the server keeps
  /// listening; so does a failed accept.
  Session accept_client();

  /// Serves the one client already reachable through `peer` (a launcher's
  /// channel, e.g. MPI), screened like any other; `peer_host` is its
  /// address, for the GID family and rdma_cm's check of who connects.
  /// Throws an Error saying why when the client is refused.
  Session accept_over(std::unique_ptr<Bootstrap> peer, const std::string& peer_host);

  /// While it lives, a thread answers every client that connects with a
  /// Reject saying the server is busy with `running_for`.
  class TurnAway {
   public:
    TurnAway(ControlListener& listener, std::string message, Notice notice);
    ~TurnAway();
    TurnAway(const TurnAway&) = delete;
    TurnAway& operator=(const TurnAway&) = delete;

   private:
    void run();
    ControlListener& listener_;
    std::string message_;
    Notice notice_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
  };
  std::unique_ptr<TurnAway> turn_away_while_busy(const std::string& running_for);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Connects to `config.server` and negotiates `spec`. The memory provider is
/// made first, so that a missing GPU driver is reported before connecting.
Session connect_to_server(const SideConfig& config, TestSpec spec, const Notice& notice);

/// The same through a channel that `reach_server` opens (called once, after
/// this side's device and memory checks): how a launcher-provided bootstrap
/// (MPI) replaces the TCP control connection.
Session connect_over(const SideConfig& config, TestSpec spec, const Notice& notice,
                     const std::function<std::unique_ptr<Bootstrap>()>& reach_server);

}  // namespace rdmabench
