#pragma once
// Pieces shared by the timed loops: prepared work requests, reaping
// completions, and turning stamps into a size's result.

#include <infiniband/verbs.h>

#include <array>
#include <cstdint>
#include <vector>

#include "rdmabench/system/clock.hpp"
#include "rdmabench/report/result.hpp"
#include "loops/loop_view.hpp"
#include "loops/receive_lanes.hpp"
#include "system/watchdog.hpp"

namespace rdmabench::detail {

/// A prebuilt work request of `bytes` between our local buffer and the
/// peer's exposed buffer: a write or send (inline when it fits), a read, or
/// an atomic.
struct PreparedOperation {
  ibv_send_wr wr{};
  ibv_sge sge{};
  unsigned base_flags = 0;  ///< IBV_SEND_INLINE when a write or send fits
};
PreparedOperation prepare_operation(const LoopView& view, std::uint64_t bytes);


/// The hint for a test whose target reaps receives, on a transport without
/// receiver-not-ready retry (iWARP): an empty receive queue breaks the
/// connection.
void explain_receive_shortage(const LoopView& view, Watchdog& dog);

/// Blocks (spinning, watched) until one completion arrives; checks it.
void reap_one(ibv_cq* cq, Watchdog& dog);
/// One look at `cq`: true if it held a successful completion.
bool try_reap_one(ibv_cq* cq, Watchdog& dog);

/// A prebuilt receive into our exposed buffer, long enough for any size. On
/// UD a first scatter entry takes the 40-byte GRH, which every completion
/// counts in its byte_len (`header_bytes`).
struct PreparedReceive {
  ibv_recv_wr wr{};
  std::array<ibv_sge, 2> sges{};
  std::uint32_t header_bytes = 0;
};
PreparedReceive prepare_receive(const LoopView& view);

/// Fills the receive queues before the barrier that lets the peer send:
/// receive_queue_depth on every QP, or shared_receive_depth on the shared
/// queue (--use-srq).
void fill_receives(const LoopView& view);

/// Posts one receive for QP `lane` (on the shared queue with --use-srq):
/// the one a message outside the loops consumed.
void post_one_receive(const LoopView& view, std::size_t lane);

/// The run's receive queues, for the loops that serve every QP.
ReceiveQueues receive_queues(const LoopView& view);

/// Spins until one receive completes; checks its status and that it carried
/// `bytes` after `header_bytes` (a peer sending another size is a protocol
/// error, not a result).
void reap_receive(ibv_cq* cq, std::uint64_t bytes, std::uint32_t header_bytes, Watchdog& dog,
                  std::uint64_t progress);

/// Like reap_receive, but a zero-length message (a -D run's end marker) is
/// accepted: returns true for it.
bool reap_receive_or_marker(ibv_cq* cq, std::uint64_t bytes, std::uint32_t header_bytes,
                            Watchdog& dog, std::uint64_t progress);

/// Throws unless a receive completion of `byte_len` carried `bytes` of payload.
void check_received_length(std::uint32_t byte_len, std::uint64_t bytes, std::uint32_t header_bytes);

/// Zeroes the byte the latency loop polls; must happen before the barrier
/// that lets the peer write.
void reset_latency_target(const LoopView& view, std::uint64_t bytes);

/// A result with the size, iteration and warmup counts filled in.
SizeResult result_header(const LoopView& view, std::uint64_t bytes);

/// Bandwidth of `messages` arrivals stamped `first` to `last` (ticks): the
/// first message's own transfer is outside the interval, so all but one count.
std::optional<BandwidthFigures> arrival_figures(std::uint64_t first, std::uint64_t last,
                                                std::uint64_t messages, std::uint64_t bytes,
                                                double ticks_per_us);

/// The result of a ping-pong from its post stamps: one-way samples (round
/// trip / 2) and their summary. The initiator has iterations + 1 stamps (its
/// last round trip ends with one); the responder sees only `iterations`
/// messages, so it can time iterations - 1 round trips between them.
SizeResult ping_pong_result(const LoopView& view, std::uint64_t bytes,
                            const std::vector<std::uint64_t>& stamps, const ClockInfo& clock);

/// Stamps -> samples in microseconds: sample k = (stamps[k+1] - stamps[k]) / divisor.
std::vector<double> interval_samples(const std::vector<std::uint64_t>& stamps, std::size_t count,
                                     double ticks_per_us, double divisor);

}  // namespace rdmabench::detail
