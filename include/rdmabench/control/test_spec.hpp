#pragma once
/// @file
/// What a benchmark run measures: the parameters both peers must agree on.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/verbs/qp_type.hpp"

namespace rdmabench {

enum class Operation : std::uint8_t { write = 1, read = 2, send = 3, atomic = 4 };
enum class AtomicOp : std::uint8_t { fetch_and_add = 1, compare_and_swap = 2 };

/// Atomics always operate on 8 bytes.
inline constexpr std::uint64_t kAtomicBytes = 8;
enum class Measurement : std::uint8_t { bandwidth = 1, latency = 2 };
enum class ConnectMethod : std::uint8_t { tcp_exchange = 1, rdma_cm = 2 };
/// --passive-wait: how the idle server of a read or atomic latency test
/// waits. automatic spins on iWARP only: see lib/system/idle_priority_spinner.hpp.
enum class PassiveWait : std::uint8_t { automatic = 1, spin = 2, sleep = 3 };
/// --load-op: what the background load of a latency test (--load-qps) posts.
/// Sends are named so that the wire and the reports already know them; the
/// command line refuses them for now (see find_unsupported).
enum class LoadOp : std::uint8_t { write = 1, read = 2, send = 3 };

/// Latency loops signal one message in kLatencySignalEvery (and the last).
/// They look for its completion right after the post, while the peer's
/// answer is on its way, and otherwise reap it just before the next
/// signaled post. Every message is signaled, as perftest does: siw's
/// zero-copy path for unsignaled messages of a page or more is slow over
/// loopback (docs/methodology.md#selective-signaling). The send queue holds
/// two batches, so a post never finds it full.
inline constexpr std::uint32_t kLatencySignalEvery = 1;
inline constexpr std::uint32_t kLatencySendDepth = 2 * kLatencySignalEvery;
static_assert(kLatencySendDepth >= 2 * kLatencySignalEvery);

/// The test as the client asks for it; the server adopts sizes, iterations,
/// warmup and depth from the client, and rejects a different operation,
/// measurement or connection method.
struct TestSpec {
  Operation operation = Operation::write;
  Measurement measurement = Measurement::bandwidth;
  ConnectMethod connect = ConnectMethod::tcp_exchange;
  QpType qp_type = QpType::rc;  ///< -c/--connection; both sides must agree
  bool write_with_imm = false;  ///< --write-with-imm: writes carry immediate data, the target reaps it
  std::vector<std::uint64_t> sizes{65536};
  std::uint64_t iterations = 5000;
  std::uint32_t warmup = 0;
  /// false: only the first size warms up; each later size follows the
  /// previous one on the same queue pairs (a bandwidth -a sweep without
  /// --warmup; see docs/methodology.md#statistics).
  bool warmup_each_size = true;
  /// The client's random number for this run (below 2^53, so that any JSON
  /// reader keeps it exact); the server adopts it, so that the two sides'
  /// records of one run can be joined. 0: the client has not chosen yet.
  std::uint64_t run_id = 0;
  std::uint32_t tx_depth = 128;
  std::uint32_t post_list = 1;   ///< work requests per ibv_post_send (bandwidth tests)
  std::uint32_t rx_depth = 0;    ///< receives kept posted (send tests); 0: default_receive_depth()
  /// --use-srq: every QP's receives come from one shared receive queue of
  /// rx_depth x queue_pairs receives (send tests); both sides give it or neither.
  bool use_srq = false;
  std::uint32_t cq_mod = 0;      ///< signal one write in cq_mod; 0: 3/4 of tx_depth, at most 100
  std::uint32_t queue_pairs = 1; ///< -q: bandwidth tests spread over this many QPs
  /// -g/--mcg: send tests over UD multicast. The server attaches this many
  /// UD queue pairs to one group (each a receiver with its own delivery
  /// figures) and the client sends to the group from one; 0: no multicast.
  std::uint32_t multicast_receivers = 0;
  std::uint32_t duration_s = 0;  ///< -D: run each size this long instead of `iterations`
  /// --run-infinitely: the one size runs in periods of duration_s, each
  /// reported and timed whole, until a stop signal on either side.
  bool run_infinitely = false;
  /// --repeat: the whole size list runs this many times over the one
  /// connection, each record marked with its repeat (1..repeats).
  std::uint32_t repeats = 1;
  bool bidirectional = false;    ///< -b: both sides send at once (bandwidth tests)
  bool cpu_util = false;  ///< both sides account CPU per size; the server sends its figures
  bool validate = false;  ///< check every byte of untimed messages after each size
  AtomicOp atomic = AtomicOp::fetch_and_add;  ///< atomic tests only
  PassiveWait passive_wait = PassiveWait::automatic;  ///< the client's choice holds
  /// -u: RC ack timeout exponent, 4.096 usec x 2^qp_timeout per try (14: ~67 ms).
  std::uint32_t qp_timeout = 14;
  /// --load-qps: latency tests run this many extra RC queue pairs streaming
  /// load_op messages of load_size bytes while the latency is measured; 0: none.
  std::uint32_t load_queue_pairs = 0;
  std::uint64_t load_size = 65536;
  LoadOp load_op = LoadOp::write;
  /// The client's --rate on a latency test: up to -t messages in flight on a
  /// schedule. The server of send and write latency then answers each
  /// message as it arrives (an echo) instead of taking turns.
  bool open_loop = false;

  bool operator==(const TestSpec&) const = default;
};

/// "write_bw", "read_lat": the test's name, as in the binary's name.
std::string test_name(const TestSpec& spec);

/// True when the server's CPU takes no part in the timed loop: reads, and
/// write bandwidth (one-sided operations the responder's NIC serves alone).
bool server_is_passive(const TestSpec& spec);

/// True when the server keeps a CPU busy at idle priority while the client
/// runs: a passive latency test (read, atomic) with --passive-wait spin, or
/// with auto where the transport spins by default (both ends of a connection
/// share the transport, so both sides reach the same answer).
bool server_spins_while_passive(const TestSpec& spec, bool transport_spins_by_default);
std::string to_string(PassiveWait wait);  ///< auto, spin, sleep
std::string to_string(ConnectMethod method);
std::string to_string(AtomicOp op);  ///< perftest's names: FETCH_AND_ADD, CMP_AND_SWAP
std::string to_string(LoadOp op);    ///< write, read, send

/// The first option combination that cannot run on any device (reads on UC,
/// writes on UD, rdma_cm with UC or UD), as a message naming both options;
/// nullopt if the spec is coherent.
std::optional<std::string> find_unsupported(const TestSpec& spec);

/// True when the target of each message reaps a receive completion: sends,
/// and writes with immediate data.
bool uses_receives(const TestSpec& spec);

/// True when writes carry immediate data: --write-with-imm, or an open-loop
/// write latency test, whose server answers each write as it sees it.
bool writes_with_immediate(const TestSpec& spec);

/// True when the server echoes every message as it arrives, several in
/// flight: open-loop send and write latency (loops/open_loop_echo.cpp).
bool server_echoes(const TestSpec& spec);

/// A run's id (TestSpec::run_id) fits a JSON number exactly: below 2^53.
inline constexpr std::uint64_t kMaxRunId = (std::uint64_t{1} << 53) - 1;

/// A new run's id: random, nonzero, at most kMaxRunId.
std::uint64_t new_run_id();

/// Bandwidth loops signal one completion in this many work requests:
/// cq_mod (-Q), or by default 3/4 of the queue, at most 100, and at least
/// one per kMaxBytesPerSignal.
inline constexpr std::uint64_t kMaxBytesPerSignal = 64u << 10;

/// Messages of `bytes` per signaled completion in bandwidth loops.
std::uint32_t signal_interval(const TestSpec& spec, std::uint64_t bytes);

/// The share of a -D run left untimed at each end: a tenth (the warm-up
/// and the cool-down), or none in a soak, whose periods follow each other
/// on a running connection and are timed whole.
inline double untimed_margin_share(const TestSpec& spec) { return spec.run_infinitely ? 0.0 : 0.1; }

/// Untimed messages before size `size_index` of the sweep: the agreed
/// warmup, or none after the first size of a sweep that warms once.
std::uint32_t warmup_for_size(const TestSpec& spec, std::size_t size_index);

/// Largest size in the sweep (buffers are allocated once for it).
std::uint64_t largest_size(const TestSpec& spec);

/// Powers of two from 2 B to 8 MiB, as perftest's -a.
std::vector<std::uint64_t> all_sizes();

}  // namespace rdmabench
