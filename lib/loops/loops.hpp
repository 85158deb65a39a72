#pragma once
// The timed loops, one per kind of measurement. Nothing calls them but
// the loop table (loops/loop_table.cpp), which says which one runs when.

#include <cstdint>

#include "rdmabench/report/result.hpp"
#include "rdmabench/system/clock.hpp"
#include "loops/loop_view.hpp"

namespace rdmabench::detail {

/// Ping-pong write latency for one size; fills samples (microseconds).
SizeResult measure_write_latency(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// Read or atomic latency: one signaled operation at a time, full round trip
/// (the client's side; the server's side returns no figures).
SizeResult measure_round_trip_latency(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// The same with --rate: open loop, up to -t in flight, response time from
/// each message's intended send time (loops/open_loop_latency.cpp).
SizeResult measure_open_loop_round_trip(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// Open-loop send and write latency (--rate): the client sends on the
/// schedule, the server answers each message as it arrives; the client's
/// response time ends at the answer (loops/open_loop_echo.cpp).
SizeResult measure_open_loop_echo(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// Send latency: ping-pong of sends, round trip / 2; both sides measure.
SizeResult measure_send_latency(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// The receiving side of send bandwidth: reaps and reposts receives, timed
/// from the first arrival to the last.
SizeResult measure_receive_bandwidth(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// The receiving side of send bandwidth on UC and UD (one QP): counts what
/// arrives until the sender says it is done, and reports the loss.
SizeResult measure_unreliable_receive(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// Streaming bandwidth of writes, reads or sends for one size (the client's
/// side; a passive server's side returns no figures).
SizeResult measure_bandwidth(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// The passive side of a one-sided latency test (the server of a read or
/// atomic latency test): the size's header, no figures.
SizeResult passive_latency_side(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

}  // namespace rdmabench::detail
