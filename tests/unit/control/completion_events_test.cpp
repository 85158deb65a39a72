// -e/--use-event: where the loops sleep on a completion channel, where -e
// is refused and why, what it does to the idle server's spinner, and that
// the client's choice holds on both sides. The sleeping itself needs a
// device: tests/lab/events_test.cpp.

#include "catch2_compat.hpp"

#include "cli/options.hpp"
#include "control/connection_plan.hpp"
#include "rdmabench/control/test_parameters.hpp"
#include "pair_kinds.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::cli::BenchmarkKind;
using rdmabench::cli::parse_command_line;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;

namespace {

// The binaries' own kinds (pair_kinds.hpp), so each test's defaults are theirs.
const BenchmarkKind& kEventsSendLat = rdmabench::test::kSendLatency;
const BenchmarkKind& kEventsSendBw = rdmabench::test::kSendBandwidth;
const BenchmarkKind& kEventsWriteLat = rdmabench::test::kWriteLatency;
const BenchmarkKind& kEventsWriteBw = rdmabench::test::kWriteBandwidth;
const BenchmarkKind& kEventsReadLat = rdmabench::test::kReadLatency;
const BenchmarkKind& kEventsAtomicBw = rdmabench::test::kAtomicBandwidth;

TestSpec spec_with_events(Operation operation, Measurement measurement) {
  TestSpec s;
  s.operation = operation;
  s.measurement = measurement;
  s.use_event = true;
  return s;
}

/// What plan_connection sees of rxe0: a RoCEv2 port at MTU 1024, and the
/// limits SRQ and multicast plans need.
struct RxePlanInputs {
  PortAttributes port;
  Transport transport;
  DeviceLimits limits;
  RxePlanInputs() {
    port.device = "rxe0";
    port.link_layer = LinkLayer::ethernet;
    port.active_mtu_bytes = 1024;
    port.max_message_bytes = 1u << 30;
    transport.kind = TransportKind::roce_v2;
    limits.max_qp = 1 << 17;
    limits.max_qp_wr = 1 << 20;
    limits.max_cqe = 32767;
    limits.max_srq = 1 << 10;
    limits.max_srq_wr = 1 << 20;
    limits.max_srq_sge = 4;
    limits.max_mcast_grp = 8192;
    limits.max_mcast_qp_attach = 56;
  }
};

}  // namespace

TEST_CASE("events: -e sleeps in every test whose loops reap completions", "[events][options]") {
  for (const BenchmarkKind& kind : {kEventsSendLat, kEventsSendBw, kEventsWriteBw, kEventsReadLat, kEventsAtomicBw}) {
    INFO(kind.name);
    const auto cl = parse_command_line(kind, {"-e", "10.0.0.1"});
    CHECK(cl.spec.use_event);
    CHECK(waits_on_events(cl.spec));
    CHECK_FALSE(waits_on_events(parse_command_line(kind, {"10.0.0.1"}).spec));
  }
  // Write latency reaps a completion per message only with immediate data.
  CHECK(waits_on_events(parse_command_line(kEventsWriteLat, {"-e", "--write-with-imm", "10.0.0.1"}).spec));
  // Timed runs and soaks keep their deadlines: each sleep is a slice.
  CHECK(waits_on_events(parse_command_line(kEventsSendBw, {"-e", "-D", "2", "10.0.0.1"}).spec));
}

TEST_CASE("events: -e is refused where no completion comes or a schedule must be kept",
          "[events][options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kEventsWriteLat, {"-e", "10.0.0.1"}), UsageError,
                         MessageContains("-e/--use-event does not apply to rdma_write_lat's ping-pong, "
                                         "which polls the last byte") &&
                             MessageContains("add --write-with-imm"));
  for (const BenchmarkKind& kind : {kEventsSendLat, kEventsSendBw}) {
    INFO(kind.name);
    REQUIRE_THROWS_MATCHES(parse_command_line(kind, {"-e", "--rate", "1000pps", "10.0.0.1"}), UsageError,
                           MessageContains("-e/--use-event and --rate conflict"));
  }
  REQUIRE_THROWS_MATCHES(parse_command_line(kEventsSendLat, {"-e", "--load-qps", "2", "10.0.0.1"}), UsageError,
                         MessageContains("-e/--use-event and --load-qps conflict"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kEventsReadLat, {"-e", "--passive-wait", "spin", "10.0.0.1"}),
                         UsageError, MessageContains("-e/--use-event and --passive-wait spin conflict"));
  CHECK(parse_command_line(kEventsReadLat, {"-e", "--passive-wait", "sleep", "10.0.0.1"}).spec.use_event);
}

TEST_CASE("events: a hello the command line would refuse still never sleeps where it cannot",
          "[events]") {
  // The server adopts -e from the client's hello; where no loop has a
  // completion to sleep on, it does not claim to sleep.
  CHECK_FALSE(waits_on_events(spec_with_events(Operation::write, Measurement::latency)));
  TestSpec open_loop = spec_with_events(Operation::send, Measurement::latency);
  open_loop.open_loop = true;
  CHECK_FALSE(waits_on_events(open_loop));
  CHECK(find_unsupported(open_loop));
}

TEST_CASE("events: -e keeps the idle server of a read or atomic latency test asleep", "[events]") {
  TestSpec read_lat = spec_with_events(Operation::read, Measurement::latency);
  CHECK_FALSE(server_spins_while_passive(read_lat, /*transport_spins_by_default=*/true));
  read_lat.use_event = false;
  CHECK(server_spins_while_passive(read_lat, true));
}

TEST_CASE("events: the client's -e holds on both sides", "[events][parameters]") {
  TestSpec server, client;
  server.operation = client.operation = Operation::send;
  client.use_event = true;
  CHECK_FALSE(find_conflict(server, client));
  CHECK(adopt_client_choice(server, client).use_event);
  // A server given -e serves a client without it as that client asks.
  server.use_event = true;
  client.use_event = false;
  CHECK_FALSE(adopt_client_choice(server, client).use_event);
}

TEST_CASE("events: the plan gives the connection a completion channel only where the loops sleep",
          "[events][plan]") {
  const RxePlanInputs rxe;
  auto plan = [&](const TestSpec& spec) {
    return detail::plan_connection(spec, Role::client, {}, rxe.port, rxe.transport, rxe.limits, /*memory_cpu_readable=*/true);
  };
  CHECK(plan(spec_with_events(Operation::send, Measurement::bandwidth)).completion_events);
  CHECK_FALSE(plan(spec_with_events(Operation::write, Measurement::latency)).completion_events);
  CHECK_FALSE(plan(TestSpec{}).completion_events);
}

TEST_CASE("events: -e goes with --use-srq, multicast receivers and --repeat", "[events][options][plan]") {
  // A shared receive queue's completions land on the receive CQ, as each
  // QP's own receives do; a multicast group's receivers are UD QPs on that
  // same CQ; --repeat runs the same loops again. All sleep on its channel.
  const auto srq = parse_command_line(kEventsSendBw, {"-e", "--use-srq", "-q", "4", "10.0.0.1"}).spec;
  CHECK(srq.use_srq);
  CHECK(waits_on_events(srq));
  CHECK(waits_on_events(parse_command_line(kEventsSendLat, {"-e", "--use-srq", "10.0.0.1"}).spec));
  const auto group = parse_command_line(kEventsSendBw, {"-e", "-g", "2", "10.0.0.1"}).spec;
  CHECK(group.multicast_receivers == 2u);
  CHECK(waits_on_events(group));
  CHECK(waits_on_events(parse_command_line(kEventsSendLat, {"-e", "-g", "10.0.0.1"}).spec));
  const auto repeated = parse_command_line(kEventsSendBw, {"-e", "--repeat", "3", "10.0.0.1"}).spec;
  CHECK(repeated.repeats == 3u);
  CHECK(waits_on_events(repeated));

  const RxePlanInputs rxe;
  for (const TestSpec& spec : {srq, group}) {
    const auto plan =
        detail::plan_connection(spec, Role::server, {}, rxe.port, rxe.transport, rxe.limits, /*memory_cpu_readable=*/true);
    CHECK(plan.completion_events);
    CHECK((plan.shared_receive_depth > 0) == spec.use_srq);
  }
}
