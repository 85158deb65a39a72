#pragma once
/// @file
/// A connected pair of queue pairs with their buffers: everything a timed
/// loop needs, set up once per run. Building one is the whole control path:
/// device, transport, control handshake, QP connection (by attribute
/// exchange or rdma_cm), memory registration.

#include <chrono>
#include <cstdint>
#include <atomic>
#include <functional>
#include <thread>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/engine/pacing.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/memory/memory.hpp"
#include "rdmabench/verbs/resources.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench {

enum class Role { server, client };

/// Per-side queue pair and registration settings (perftest's -I, -m, --sl,
/// --tclass, --pkey_index, --disable_pcie_relaxed).
struct QpOptions {
  std::optional<std::uint32_t> inline_bytes;  ///< empty: perftest's default for the test and device
  std::optional<std::uint32_t> mtu_bytes;     ///< empty: the port's active MTU
  std::uint8_t service_level = 0;
  std::uint8_t traffic_class = 0;
  std::uint16_t pkey_index = 0;   ///< index into the port's P_Key table
  bool relaxed_ordering = true;   ///< register data buffers with PCIe relaxed ordering
};

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
  /// Server only: listen on tcp_port for control connections. False when a
  /// launcher brings each client's channel instead (Server::accept_over).
  bool listen_for_control = true;
  QpOptions qp;
};

/// Progress messages for the user ("siw0 is iWARP: using rdma_cm").
using Notice = std::function<void(const std::string&)>;

/// --load-qps: the background load's queue pairs and what only they use,
/// apart from the latency's so that the latency thread never touches them.
/// Members tear down bottom-up: QPs, then registrations, buffers and the CQ.
struct LoadQueues {
  static constexpr std::uint32_t kDepth = 32;  ///< messages each load QP keeps in flight
  /// Receives the server of a send load keeps posted on each load QP: four
  /// times what the sender keeps in flight, so that a receiving thread
  /// descheduled for a while still finds the sender less than a queue ahead.
  static constexpr std::uint32_t kReceiveDepth = 4 * kDepth;
  CompletionQueue cq;  ///< every load QP's completions, both directions
  Buffer local_buffer;     ///< our load writes' source, our load reads' sink
  Buffer exposed_buffer;   ///< what the peer's load touches
  MemoryRegion local_mr;
  MemoryRegion exposed_mr;
  std::vector<QueuePair> qps;  ///< spec.load_queue_pairs of them
  RemoteBuffer remote;         ///< the peer's exposed load buffer
};

class Session {
 public:
  /// `peer` is how this side reaches the other out of band.
  Session(Role role, std::unique_ptr<Bootstrap> peer, TestSpec spec);
  Session(Session&&) = default;
  ~Session();

  Role role;
  const TestSpec spec;  ///< as both sides agreed in the handshake; never changed after
  std::size_t size_index = 0;  ///< which of spec.sizes the engine is running
  /// Client, --rate: the latency loop runs open loop on this schedule.
  std::optional<Pacing> pacing;
  std::unique_ptr<Bootstrap> peer;  ///< the out-of-band path to the other side

  // Teardown runs bottom-up (reverse of declaration): memory regions before
  // their buffers, the QP before its CQ and PD, all verbs objects before the
  // context, the rdma_cm id (which may own the context) after them, and the
  // event channel last. ~Session disconnects the rdma_cm id first.
  EventChannel cm_events;
  std::vector<CmId> cm_ids;     ///< with rdma_cm: one connection per QP, then per load QP
  std::size_t cm_established = 0;  ///< how many of cm_ids were connected
  Context owned_context;        ///< set when the device was opened by name
  ibv_context* context = nullptr;
  PortAttributes port;
  Transport transport;
  ProtectionDomain pd;
  CompletionQueue cq;       ///< completions of our sends, writes and reads
  CompletionQueue recv_cq;  ///< completions of our posted receives
  std::vector<QueuePair> qps;   ///< spec.queue_pairs of them; latency loops use one
  std::vector<AddressHandle> peer_ahs;   ///< UD: the route to each peer QP (sends name it)
  std::vector<std::uint32_t> peer_qpns;  ///< UD: each peer QP's number
  std::unique_ptr<MemoryProvider> memory;
  Buffer local_buffer;    ///< what our own work requests use: write source, read destination
  Buffer exposed_buffer;  ///< what the peer's operations touch: write target, read source
  MemoryRegion local_mr;
  MemoryRegion exposed_mr;
  std::vector<std::byte> grh_buffer;  ///< UD: where each receive's 40-byte GRH lands
  MemoryRegion grh_mr;
  LoadQueues load;  ///< empty without --load-qps
  RegistrationPath registration = RegistrationPath::host;  ///< how both buffers were registered

  RemoteBuffer remote;
  std::string remote_memory;
  std::uint32_t path_mtu_bytes = 0;
  std::uint32_t max_inline = 0;
  std::vector<std::uint32_t> inline_tries;  ///< what QP creation asks for, largest first
  std::string inline_reason;                ///< why max_inline is what it is
  bool relaxed_local = false;    ///< local_buffer was registered with relaxed ordering
  bool relaxed_exposed = false;  ///< exposed_buffer was registered with relaxed ordering
  std::uint32_t send_queue_depth = 0;
  std::uint32_t receive_queue_depth = 0;
  std::uint32_t local_psn = 0;       ///< every QP starts its sends here
  std::uint8_t read_depth = 0;       ///< RDMA reads we may have outstanding (initiator depth)
  std::uint8_t read_responders = 0;  ///< reads we accept outstanding (responder resources)
  Milliseconds timeout{10000};
  QpOptions qp_options;
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
