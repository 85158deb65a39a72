#include "rdmabench/engine/engine.hpp"

#include <algorithm>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <optional>

#include "control/heartbeat.hpp"
#include "system/pause_points.hpp"
#include "engine/peer_figures.hpp"
#include "engine/soak.hpp"
#include "engine/validate.hpp"
#include "loops/load_receives.hpp"
#include "loops/loop_kit.hpp"
#include "rdmabench/system/stop_signals.hpp"
#include "rdmabench/verbs/counter_sampler.hpp"
#include "rdmabench/verbs/port_counters.hpp"
#include "loops/loop_table.hpp"
#include "system/idle_priority_spinner.hpp"
#include "rdmabench/version.hpp"

namespace rdmabench {

namespace {

// Barrier numbers per size: 0 and 1 belong to the handshake.
std::uint32_t start_barrier(std::size_t size_index) { return 2 + 2 * static_cast<std::uint32_t>(size_index); }

/// --validate's barriers, numbered apart from the per-size ones.
constexpr std::uint32_t kValidationBarriers = 1'000'000;


/// Payload bytes through this side in one size's loop, warmup included
/// (ping-pongs and -b carry them both ways), for CPU-seconds per GB. A -D
/// run's count is known only inside its window, so its bytes are the
/// window's rate over the whole CPU region (latency: the samples taken).
std::uint64_t bytes_moved(const TestSpec& spec, std::uint32_t warmup, const SizeResult& result,
                          double region_s) {
  const std::uint64_t ways =
      (spec.measurement == Measurement::latency && !server_is_passive(spec)) || spec.bidirectional ? 2 : 1;
  if (spec.duration_s) {
    const auto* b = result.bandwidth ? &*result.bandwidth
                    : result.server_bandwidth ? &*result.server_bandwidth : nullptr;
    if (b) return static_cast<std::uint64_t>(b->average_mb_per_s * 1e6 * region_s) * ways;
    // A -D latency run counts its messages exactly (the histogram's count).
    if (result.latency) return result.latency->count * result.bytes * ways;
    return 0;
  }
  const std::uint64_t messages = (warmup + spec.iterations) * spec.queue_pairs;
  return result.bytes * messages * ways;
}

/// The server sends its figures; the client keeps both.
void exchange_cpu_figures(Session& s, const CpuUsage& mine, SizeResult& result) {
  if (s.role == Role::server) {
    result.cpu_server = mine;
    s.peer->send(wire::CpuReport{mine});
  } else {
    result.cpu_client = mine;
    result.cpu_server = s.peer->receive_expected<wire::CpuReport>(s.timeout, "the server's CPU figures").usage;
  }
}

bool spins_while_passive(const Session& s) {
  return server_spins_while_passive(s.spec, idle_server_spins_by_default(s.connection.transport.kind));
}

/// What the loops may read of the session while they run size `size_index`.
detail::LoopView loop_view(Session& s, std::size_t size_index) {
  return detail::view_of(s.role, s.spec, size_index, s.pacing, *s.peer, s.timeout, s.interval,
                           s.connection);
}

std::string hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

/// The header's account of PCIe relaxed ordering on this side's buffers.
std::string describe_relaxed_ordering(const Connection& c) {
  if (!c.plan.qp.relaxed_ordering) return "strict (--relaxed-ordering off)";
  const char* optional = "; a device without it ignores the request";
  if (c.relaxed_exposed) return fmt::format("relaxed ordering requested for both buffers{}", optional);
  return fmt::format("relaxed ordering requested for the source buffer{}; strict for the target, "
                     "whose last byte the CPU polls",
                     optional);
}

}  // namespace

RunContext describe_run(const Session& s, const ClockInfo& clock) {
  const Connection& link = s.connection;
  RunContext c;
  const bool latency = s.spec.measurement == Measurement::latency;
  c.test = test_name(s.spec);
  const bool read = s.spec.operation == Operation::read;
  const bool atomic = s.spec.operation == Operation::atomic;
  const std::string operation = read     ? "RDMA Read"
                                : atomic ? "Atomic " + to_string(s.spec.atomic)
                                : s.spec.operation == Operation::send ? "Send"
                                : writes_with_immediate(s.spec)       ? "RDMA Write with Immediate"
                                                                      : "RDMA Write";
  c.title = operation + (latency ? " Latency Test" : " BW Test");
  c.role = s.role == Role::server ? "server" : "client";
  c.run_id = s.spec.run_id;
  c.started_utc = utc_now_text();
  c.version = kVersion;
  c.build_type = kBuildType;
  c.host = hostname();
  c.device = link.port.device;
  c.port = link.port.port;
  c.transport = to_string(link.transport.kind);
  c.link_layer = link.port.link_layer == LinkLayer::ethernet ? "Ethernet" : "InfiniBand";
  c.gid_index = static_cast<int>(link.transport.gid.index);
  c.gid = format_gid(link.transport.gid.gid);
  c.gid_type = to_string(link.transport.gid.type);
  c.gid_reason = link.transport.gid_reason;
  if (link.grh) c.grh = GrhSettings{link.grh->hop_limit, link.grh->flow_label, link.grh->traffic_class};
  c.mtu_bytes = link.path_mtu_bytes;
  c.connection = to_string(s.spec.connect);
  c.connection_type = to_string(s.spec.qp_type);
  if (link.multicast_group) {
    c.multicast_group = format_gid(*link.multicast_group);
    c.multicast_receivers = s.spec.multicast_receivers;
  }
  c.peer = s.peer->peer_name();
  c.local_memory = link.memory ? link.memory->name() : "";
  c.local_memory_device = link.memory ? link.memory->device_description() : "";
  c.memory_registration = to_string(link.registration);
  c.remote_memory = link.remote_memory;
  c.clock = clock.description;
  c.tx_depth = latency && !s.spec.open_loop ? 1 : s.spec.tx_depth;
  c.max_inline = link.max_inline;
  c.inline_reason = link.inline_reason;
  c.relaxed_local = link.relaxed_local;
  c.relaxed_exposed = link.relaxed_exposed;
  c.relaxed_ordering = describe_relaxed_ordering(link);
  c.queue_pairs = static_cast<std::uint32_t>(link.qps.size());
  c.srq_depth = link.plan.shared_receive_depth;
  c.srq_reason = link.plan.shared_receive_reason;
  c.duration_s = s.spec.duration_s;
  c.bidirectional = s.spec.bidirectional;
  c.parameters = s.spec;
  c.completions = s.role == Role::server && server_is_passive(s.spec) ? "none"
                  : waits_on_events(s.spec)                           ? "events"
                                                                      : "busy polling";
  if (latency && server_is_passive(s.spec)) {
    const std::string choice =
        s.spec.passive_wait == PassiveWait::automatic
            ? fmt::format("--passive-wait auto, on {}", to_string(link.transport.kind))
            : "--passive-wait " + to_string(s.spec.passive_wait);
    c.passive_wait =
        spins_while_passive(s)
            ? "the server spins at idle priority (SCHED_IDLE), keeping a CPU awake for a "
              "soft device's responder; its CPU figures show that core (" +
                  choice + ")"
            : "the server sleeps (" + choice + ")";
  }
  if (latency)
    c.latency_kind = read ? "round trip (one read)"
                     : atomic ? "round trip (one atomic)"
                              : kOneWayLatency;
  // An echo's response time is its full round trip: with several messages
  // in flight and queueing on the way, halving it would mean nothing.
  if (latency && server_echoes(s.spec)) c.latency_kind = "round trip (a message and its answer)";
  if (latency && s.pacing)
    c.latency_kind = fmt::format("response time: {} from its intended send time, open loop at {} (burst {}, up to {} in flight)",
                                 c.latency_kind, format_rate(s.pacing->rate), s.pacing->burst, s.spec.tx_depth);
  return c;
}

namespace {

/// One size, or one period of a soak at barrier round `round`: the port
/// counters around it, the barriers, the timed loops and what the sides
/// exchange after them.
SizeResult run_round(Session& s, const ClockInfo& clock, Reporter& reporter, std::size_t i,
                     std::size_t round) {
  const auto bytes = s.spec.sizes[i];
  const bool ping_pong = !server_is_passive(s.spec);
  const detail::LoopView view = loop_view(s, i);
  // Only a target polled by its last byte is reset (with the CPU): with
  // --write-with-imm it may be GPU memory, which the CPU cannot touch.
  if (s.spec.operation == Operation::write && s.spec.measurement == Measurement::latency &&
      !writes_with_immediate(s.spec))
    detail::reset_latency_target(view, bytes);
  // Read before the start barrier, so that the peer's loop starts no
  // sooner than ours; after the end barrier, once both are done.
  const auto counters_before =
      read_port_counters(s.connection.port.device, s.connection.port.port);
  s.peer->barrier(start_barrier(round), s.timeout);
  // Per interval too, where the run is long enough to have intervals.
  std::optional<CounterSampler> sampler;
  if (s.spec.duration_s && s.interval.count() > 0 && !counters_before.source.empty())
    sampler.emplace(s.connection.port.device, s.connection.port.port, s.interval);
  reporter.size_started(bytes);
  const auto cpu_before = s.spec.cpu_util ? take_cpu_snapshot() : CpuSnapshot{};
  if (round == 0) detail::pause_point("mid-run");
  SizeResult result = detail::measure_under_load(view, bytes, clock);
  if (round == 0) detail::pause_point("end-of-size");
  std::optional<CpuSnapshot> cpu_after;
  // A passive server answers only when the client is done, so that
  // nothing arrives on the control connection during the timed loop;
  // its CPU region is that wait, the span of the client's loop.
  if (!ping_pong && s.role == Role::server) {
    // As long as the client's size takes, while its heartbeats come.
    s.peer->answer_barrier(start_barrier(round) + 1, s.timeout);
    if (s.spec.cpu_util) cpu_after = take_cpu_snapshot();
  } else {
    if (s.spec.cpu_util) cpu_after = take_cpu_snapshot();
    s.peer->barrier(start_barrier(round) + 1, s.timeout);
  }
  if (!counters_before.source.empty()) {
    const auto counters_after = read_port_counters(s.connection.port.device, s.connection.port.port);
    result.counters = counter_deltas(counters_before, counters_after);
    // A shared receive queue that ran dry shows as RNR NAKs, where counted.
    if (s.spec.use_srq) result.receiver_not_ready = receiver_not_ready(counters_before, counters_after);
  }
  if (sampler) result.counters_per_interval = sampler->finish();
  if (s.spec.bidirectional) detail::exchange_bandwidth_figures(s, result);
  if (cpu_after) {
    const double region_s = cpu_after->wall_s - cpu_before.wall_s;
    exchange_cpu_figures(
        s, cpu_usage_between(cpu_before, *cpu_after, bytes_moved(s.spec, warmup_for_size(s.spec, i), result, region_s)), result);
  }
  if (s.spec.validate) {
    detail::validate_size(view, *s.connection.memory, bytes, kValidationBarriers + 4 * static_cast<std::uint32_t>(round));
    result.validated = true;
  }
  return result;
}

/// --run-infinitely: the one size in periods of -D seconds, each reported
/// as it ends, until a stop signal on either side; then the summary.
void run_soak(Session& s, const ClockInfo& clock, Reporter& reporter) {
  detail::SoakTotals totals;
  for (std::uint64_t period = 1;; ++period) {
    SizeResult result = run_round(s, clock, reporter, 0, static_cast<std::size_t>(period - 1));
    result.period = period;
    result.period_cut_short = StopSignals::flag().load();
    totals.add(result);
    reporter.size_done(result);
    const auto decision = detail::agree_to_go_on(s, !StopSignals::flag().load());
    if (!decision.go_on) {
      reporter.soak_done(totals.summary(decision.stopped_by));
      return;
    }
  }
}

}  // namespace

void run_benchmark(Session& s, const ClockInfo& clock, const RunContext& context,
                   Reporter& reporter) {
  try {
    // A soak ends on SIGINT or SIGTERM at either side, with its summary.
    std::optional<StopSignals> stop_signals;
    if (s.spec.run_infinitely) stop_signals.emplace();
    reporter.begin(context);
    // From here on each side says it is alive, so that no wait for the
    // other, however long its work, outlasts a stopped or vanished peer.
    detail::Heartbeats heartbeats(*s.peer, s.timeout);
    std::optional<detail::IdlePrioritySpinner> keep_cpu_awake;
    if (s.role == Role::server && spins_while_passive(s)) keep_cpu_awake.emplace();
    // Receives go up before the first barrier lets the peer send; every
    // loop reposts what it consumes, so the queue stays full across sizes.
    if (uses_receives(s.spec)) detail::fill_receives(loop_view(s, 0));
    // So do a send load's, on the server, kept posted by a thread of their own.
    std::optional<detail::LoadReceives> load_receives;
    if (s.role == Role::server && !s.connection.load.qps.empty() && s.spec.load_op == LoadOp::send)
      load_receives.emplace(loop_view(s, 0));
    if (s.spec.run_infinitely) {
      run_soak(s, clock, reporter);
    } else {
      // --repeat: the size list again on the same connection; each size of
      // each repeat is a barrier round of its own, so both sides stay in step.
      const std::size_t sizes = s.spec.sizes.size();
      for (std::uint32_t repeat = 1; repeat <= std::max<std::uint32_t>(s.spec.repeats, 1); ++repeat)
        for (std::size_t i = 0; i < sizes; ++i) {
          SizeResult result = run_round(s, clock, reporter, i, (repeat - 1) * sizes + i);
          result.repeat = repeat;
          reporter.size_done(result);
        }
    }
    if (load_receives) load_receives->finish();
    reporter.end();
    detail::pause_point("teardown");
  } catch (const Error& e) {
    s.peer->try_abort(e.what());
    throw;
  }
}

}  // namespace rdmabench
