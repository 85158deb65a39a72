#pragma once
// Pieces shared by the timed loops.

#include <infiniband/verbs.h>

#include <cstdint>
#include <vector>

#include "rdmabench/clock.hpp"
#include "rdmabench/result.hpp"
#include "rdmabench/session.hpp"
#include "watchdog.hpp"

namespace rdmabench::detail {

/// A prebuilt RDMA write of `bytes` from our source buffer to the peer's target.
struct PreparedWrite {
  ibv_send_wr wr{};
  ibv_sge sge{};
  unsigned base_flags = 0;  ///< IBV_SEND_INLINE when the message fits
};
PreparedWrite prepare_write(const Session& session, std::uint64_t bytes);

[[noreturn]] void throw_post_error(int rc, const Session& session);
[[noreturn]] void throw_completion_error(const ibv_wc& wc);

/// Blocks (spinning, watched) until one completion arrives; checks it.
void reap_one(ibv_cq* cq, Watchdog& dog);

/// Zeroes the byte the latency loop polls; must happen before the barrier
/// that lets the peer write.
void reset_latency_target(Session& session, std::uint64_t bytes);

/// Ping-pong write latency for one size; fills samples (microseconds).
SizeResult measure_write_latency(Session& session, std::uint64_t bytes, const ClockInfo& clock);

/// Streaming write bandwidth for one size (the client's side; the server's
/// side returns no figures).
SizeResult measure_write_bandwidth(Session& session, std::uint64_t bytes, const ClockInfo& clock);

}  // namespace rdmabench::detail
