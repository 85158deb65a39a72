#include "loops/loop_table.hpp"

#include <fmt/format.h>

#include <array>

#include "rdmabench/verbs/error.hpp"
#include "loops/loops.hpp"

namespace rdmabench::detail {

namespace {

using M = Measurement;
using O = Operation;
constexpr std::nullopt_t any = std::nullopt;

// Columns: name, loop, measurement, operation, receives, role, QP type,
// open loop, bidirectional. Writes with immediate data behave as sends do
// for the target: it reaps a completion per message instead of polling
// memory, so `receives` rather than the operation picks their loop.
const std::array kTable{
    LoopEntry{"send bandwidth, receiving side (RC)", measure_receive_bandwidth, M::bandwidth, any, true,
              Role::server, QpType::rc, any, false},
    LoopEntry{"send bandwidth, receiving side (UC, UD: counts the loss)", measure_unreliable_receive,
              M::bandwidth, any, true, Role::server, any, any, false},
    LoopEntry{"streaming bandwidth", measure_bandwidth, M::bandwidth, any, any, any, any, any, any},
    LoopEntry{"open-loop echo (the server answers each message)", measure_open_loop_echo, M::latency, any,
              true, any, any, true, any},
    LoopEntry{"send latency (ping-pong of receives)", measure_send_latency, M::latency, any, true, any, any,
              false, any},
    LoopEntry{"write latency (ping-pong, polling the last byte)", measure_write_latency, M::latency, O::write,
              false, any, any, false, any},
    LoopEntry{"one-sided latency, passive side", passive_latency_side, M::latency, any, false, Role::server,
              any, any, any},
    LoopEntry{"open-loop round trip (reads, atomics)", measure_open_loop_round_trip, M::latency, any, false,
              Role::client, any, true, any},
    LoopEntry{"round trip (one read or atomic at a time)", measure_round_trip_latency, M::latency, any, false,
              Role::client, any, false, any},
};

template <typename T>
bool fits(const std::optional<T>& wanted, const T& value) {
  return !wanted || *wanted == value;
}

}  // namespace

LoopKey loop_key(const TestSpec& spec, Role role) {
  return LoopKey{spec.measurement, spec.operation, uses_receives(spec), role, spec.qp_type,
                 spec.open_loop && spec.measurement == Measurement::latency, spec.bidirectional};
}

bool LoopEntry::matches(const LoopKey& key) const {
  return measurement == key.measurement && fits(operation, key.operation) && fits(receives, key.receives) &&
         fits(role, key.role) && fits(qp_type, key.qp_type) && fits(open_loop, key.open_loop) &&
         fits(bidirectional, key.bidirectional);
}

std::span<const LoopEntry> loop_table() { return kTable; }

const LoopEntry& choose_loop(const TestSpec& spec, Role role) {
  const LoopKey key = loop_key(spec, role);
  for (const LoopEntry& entry : kTable)
    if (entry.matches(key)) return entry;
  throw Error(fmt::format("internal: no timed loop runs {} on the {}", test_name(spec),
                          role == Role::server ? "server" : "client"));
}

SizeResult measure(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  return choose_loop(v.spec, v.role).run(v, bytes, clock);
}

}  // namespace rdmabench::detail
