// From an agreed spec, this side's QP options, a port and the device's
// limits to the plan a Connection is built from: no device needed.

#include "catch2_compat.hpp"

#include <string>

#include <infiniband/verbs.h>

#include "control/connection_plan.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using detail::plan_connection;
using rdmabench::test::MessageContains;

namespace {

PortAttributes port_named(const std::string& device, bool iwarp = false) {
  PortAttributes port;
  port.device = device;
  port.iwarp = iwarp;
  port.link_layer = LinkLayer::ethernet;
  port.active_mtu_bytes = 1024;
  port.max_message_bytes = 1u << 30;
  return port;
}

Transport transport_of(TransportKind kind) {
  Transport t;
  t.kind = kind;
  return t;
}

/// rxe's limits, as ibv_devinfo -v prints them.
DeviceLimits rxe_limits() {
  DeviceLimits l;
  l.max_qp = 1 << 17;
  l.max_qp_wr = 1 << 20;
  l.max_cqe = 32767;
  l.max_qp_init_rd_atom = 128;
  l.max_qp_rd_atom = 128;
  l.max_srq = 917503;
  l.max_srq_wr = 1 << 20;
  l.max_srq_sge = 27;
  l.max_mcast_grp = 8192;
  l.max_mcast_qp_attach = 56;
  l.vendor_id = 0xffffff;
  return l;
}

TestSpec plan_spec_of(Operation operation, Measurement measurement) {
  TestSpec spec;
  spec.operation = operation;
  spec.measurement = measurement;
  return spec;
}

ConnectionPlan plan_for_test(const TestSpec& spec, const DeviceLimits& limits = rxe_limits(),
                    TransportKind kind = TransportKind::roce_v2, QpOptions options = {}, Role role = Role::client) {
  return plan_connection(spec, role, options, port_named("rxe0", kind == TransportKind::iwarp), transport_of(kind),
                         limits, /*memory_cpu_readable=*/true);
}

}  // namespace

TEST_CASE("connection plan: queue depths follow the test", "[plan]") {
  auto write_bw = plan_spec_of(Operation::write, Measurement::bandwidth);
  write_bw.tx_depth = 64;
  write_bw.queue_pairs = 4;
  const auto bw = plan_for_test(write_bw);
  CHECK(bw.send_queue_depth == 64);
  CHECK(bw.receive_queue_depth == 1);  // a write's target posts no receives
  CHECK(bw.send_cq_entries == 4 * 64 + 1);
  CHECK(bw.queue_pairs == 4);
  CHECK(bw.buffer_bytes == 65536);

  auto write_lat = plan_spec_of(Operation::write, Measurement::latency);
  write_lat.tx_depth = 1;
  CHECK(plan_for_test(write_lat).send_queue_depth == kLatencySendDepth);  // one out, one pending signal

  auto send_bw = plan_spec_of(Operation::send, Measurement::bandwidth);
  send_bw.rx_depth = 512;
  CHECK(plan_for_test(send_bw).receive_queue_depth == 512);
  send_bw.rx_depth = 0;  // the transport's default
  CHECK(plan_for_test(send_bw).receive_queue_depth ==
        default_receive_depth(TransportKind::roce_v2, rxe_limits().max_qp_wr, rxe_limits().max_cqe, 1));

  auto echo = plan_spec_of(Operation::send, Measurement::latency);
  echo.open_loop = true;
  echo.tx_depth = 256;
  echo.rx_depth = 16;  // an echo keeps -t receives posted whatever -r says
  CHECK(plan_for_test(echo).receive_queue_depth == 256);
}

TEST_CASE("connection plan: a test the device cannot carry names the option and the limit", "[plan]") {
  auto spec = plan_spec_of(Operation::send, Measurement::bandwidth);
  spec.queue_pairs = 1024;
  spec.tx_depth = 128;
  spec.rx_depth = 128;
  REQUIRE_THROWS_MATCHES(plan_for_test(spec), Error,
                         MessageContains("-q/--qp 1024 with -t/--tx-depth 128 needs 131,073 completion entries in "
                                         "one CQ (QPs x depth + 1); rxe0 allows 32,767"));
  auto many = plan_spec_of(Operation::write, Measurement::bandwidth);
  many.queue_pairs = 131073;
  many.tx_depth = 1;
  REQUIRE_THROWS_MATCHES(plan_for_test(many), Error,
                         MessageContains("-q/--qp 131073 exceeds the 131,072 QPs rxe0 allows"));
  auto deep_receives = plan_spec_of(Operation::send, Measurement::bandwidth);
  deep_receives.queue_pairs = 4;
  deep_receives.tx_depth = 16;
  deep_receives.rx_depth = 16384;
  REQUIRE_THROWS_MATCHES(plan_for_test(deep_receives), Error,
                         MessageContains("-q/--qp 4 with -r/--rx-depth 16384 needs 65,537 completion entries"));
  auto deep = plan_spec_of(Operation::write, Measurement::bandwidth);
  DeviceLimits small = rxe_limits();
  small.max_qp_wr = 100;
  deep.tx_depth = 101;
  REQUIRE_THROWS_MATCHES(plan_for_test(deep, small), Error,
                         MessageContains("-t/--tx-depth 101 is outside 1..100 (the device's max_qp_wr on rxe0)"));
  auto receives = plan_spec_of(Operation::send, Measurement::bandwidth);
  receives.tx_depth = 64;
  receives.rx_depth = 101;
  REQUIRE_THROWS_MATCHES(plan_for_test(receives, small), Error, MessageContains("-r/--rx-depth 101 exceeds 100"));
}

TEST_CASE("connection plan: a multicast server makes a QP per receiver, its client one", "[plan][multicast]") {
  auto spec = plan_spec_of(Operation::send, Measurement::bandwidth);
  spec.qp_type = QpType::ud;
  spec.multicast_receivers = 3;
  spec.rx_depth = 100;
  const auto server = plan_for_test(spec, rxe_limits(), TransportKind::roce_v2, {}, Role::server);
  CHECK(server.queue_pairs == 3);
  CHECK(server.receive_cq_entries == 3 * 100 + 1);  // every receiver's completions in one CQ
  CHECK(plan_for_test(spec, rxe_limits(), TransportKind::roce_v2, {}, Role::client).queue_pairs == 1);
  // What the device attaches to one group bounds -g, on the server only.
  spec.multicast_receivers = 57;
  REQUIRE_THROWS_MATCHES(plan_for_test(spec, rxe_limits(), TransportKind::roce_v2, {}, Role::server), Error,
                         MessageContains("-g/--mcg 57 exceeds the 56 queue pairs rxe0 attaches to one multicast "
                                         "group (max_mcast_qp_attach) (give -g 56 or fewer)"));
  CHECK(plan_for_test(spec, rxe_limits(), TransportKind::roce_v2, {}, Role::client).queue_pairs == 1);
  DeviceLimits none = rxe_limits();
  none.max_mcast_grp = 0;
  spec.multicast_receivers = 1;
  REQUIRE_THROWS_MATCHES(plan_for_test(spec, none, TransportKind::roce_v2, {}, Role::server), Error,
                         MessageContains("rxe0 offers no multicast groups (its max_mcast_grp is 0)"));
  // A receiver count beyond the QPs: named as -g, not -q.
  DeviceLimits few = rxe_limits();
  few.max_qp = 2;
  spec.multicast_receivers = 3;
  REQUIRE_THROWS_MATCHES(plan_for_test(spec, few, TransportKind::roce_v2, {}, Role::server), Error,
                         MessageContains("-g/--mcg 3 exceeds the 2 QPs rxe0 allows (lower -g)"));
}

TEST_CASE("connection plan: read depths are the device's, at most 255", "[plan]") {
  DeviceLimits big = rxe_limits();
  big.max_qp_init_rd_atom = 16;
  big.max_qp_rd_atom = 1000;
  const auto p = plan_for_test(plan_spec_of(Operation::read, Measurement::bandwidth), big);
  CHECK(p.read_depth == 16);
  CHECK(p.read_responders == 255);
}

TEST_CASE("connection plan: access flags and inline size come from the spec, the fabric and the options",
          "[plan]") {
  const auto read_bw = plan_spec_of(Operation::read, Measurement::bandwidth);
  // iWARP carries a Read Response as a tagged write into the sink.
  CHECK((plan_for_test(read_bw, rxe_limits(), TransportKind::iwarp).access.local_buffer & IBV_ACCESS_REMOTE_WRITE) != 0);
  CHECK((plan_for_test(read_bw, rxe_limits(), TransportKind::roce_v2).access.local_buffer & IBV_ACCESS_REMOTE_WRITE) == 0);
  QpOptions strict;
  strict.relaxed_ordering = false;
  CHECK((plan_for_test(read_bw, rxe_limits(), TransportKind::roce_v2, strict).access.local_buffer &
         IBV_ACCESS_RELAXED_ORDERING) == 0);
  QpOptions inline_64;
  inline_64.inline_bytes = 64;
  const auto write_lat = plan_for_test(plan_spec_of(Operation::write, Measurement::latency), rxe_limits(),
                              TransportKind::roce_v2, inline_64);
  CHECK(write_lat.inline_tries == std::vector<std::uint32_t>{64});
  CHECK(write_lat.qp.inline_bytes == 64u);
  CHECK(write_lat.ack_timeout == 14);
}

TEST_CASE("connection plan: the background load's queues", "[plan]") {
  auto spec = plan_spec_of(Operation::write, Measurement::latency);
  CHECK(plan_for_test(spec).load.queue_pairs == 0);
  spec.load_queue_pairs = 3;
  spec.load_size = 4096;
  spec.load_op = LoadOp::send;
  const auto load = plan_for_test(spec).load;
  CHECK(load.queue_pairs == 3);
  CHECK(load.buffer_bytes == 4096);
  CHECK(load.receive_depth == LoadPlan::kReceiveDepth);
  CHECK(load.cq_entries == 3 * (LoadPlan::kDepth + LoadPlan::kReceiveDepth) + 1);
  CHECK((load.access.exposed_buffer & IBV_ACCESS_LOCAL_WRITE) != 0);  // a send's sink
}

TEST_CASE("connection plan: --use-srq shares -r x -q receives in one queue", "[plan][srq]") {
  auto send_bw = plan_spec_of(Operation::send, Measurement::bandwidth);
  send_bw.queue_pairs = 4;
  CHECK(plan_for_test(send_bw).shared_receive_depth == 0);  // without it, each QP has its own
  send_bw.use_srq = true;
  const auto by_default = plan_for_test(send_bw);
  CHECK(by_default.receive_queue_depth == 512);
  CHECK(by_default.shared_receive_depth == 4 * 512);
  CHECK(by_default.shared_receive_reason == "the default depth 512 x 4 QPs");
  CHECK(by_default.receive_cq_entries == 4 * 512 + 1);
  send_bw.rx_depth = 100;
  const auto given = plan_for_test(send_bw);
  CHECK(given.shared_receive_depth == 400);
  CHECK(given.shared_receive_reason == "-r/--rx-depth 100 x 4 QPs");
  auto send_lat = plan_spec_of(Operation::send, Measurement::latency);
  send_lat.use_srq = true;
  send_lat.rx_depth = 64;
  CHECK(plan_for_test(send_lat).shared_receive_depth == 64);
  CHECK(plan_for_test(send_lat).shared_receive_reason == "-r/--rx-depth 64");
}

TEST_CASE("connection plan: --use-srq within the device's max_srq_wr", "[plan][srq]") {
  auto send_bw = plan_spec_of(Operation::send, Measurement::bandwidth);
  send_bw.use_srq = true;
  send_bw.queue_pairs = 8;
  auto small = rxe_limits();
  small.max_srq_wr = 1000;
  // The default depth is lowered to what the device holds, and says so.
  const auto lowered = plan_for_test(send_bw, small);
  CHECK(lowered.shared_receive_depth == 1000);
  CHECK(lowered.shared_receive_reason == "the default depth 512 x 8 QPs, lowered to rxe0's max_srq_wr");
  CHECK(lowered.receive_cq_entries == 1001);
  // So is it to what one CQ holds: the SRQ lets many QPs share fewer receives.
  send_bw.queue_pairs = 1024;
  send_bw.tx_depth = 16;  // 1024 x 16 sends fit one CQ
  const auto many = plan_for_test(send_bw);
  CHECK(many.shared_receive_depth == 32766);
  CHECK(many.shared_receive_reason == "the default depth 512 x 1024 QPs, lowered to what one rxe0 CQ holds");
  // A depth the user gave is refused instead, naming both options and the limit.
  send_bw.queue_pairs = 8;
  send_bw.rx_depth = 200;
  REQUIRE_THROWS_MATCHES(plan_for_test(send_bw, small), Error,
                         MessageContains("--use-srq with -q/--qp 8 and -r/--rx-depth 200 needs a shared receive "
                                         "queue of 1,600 receives (-r x -q); rxe0 allows 1,000 (max_srq_wr)"));
  REQUIRE_THROWS_MATCHES(plan_for_test(send_bw, small), Error, MessageContains("lower -r or -q"));
}

TEST_CASE("connection plan: --use-srq on a device without shared receive queues", "[plan][srq]") {
  auto send_bw = plan_spec_of(Operation::send, Measurement::bandwidth);
  send_bw.use_srq = true;
  auto none = rxe_limits();
  none.max_srq = 0;
  REQUIRE_THROWS_MATCHES(plan_for_test(send_bw, none), Error,
                         MessageContains("--use-srq needs a shared receive queue, and rxe0 offers none (its "
                                         "max_srq is 0)"));
  // UD's receives take two scatter entries: the GRH, then the payload.
  auto one_entry = rxe_limits();
  one_entry.max_srq_sge = 1;
  send_bw.qp_type = QpType::ud;
  REQUIRE_THROWS_MATCHES(plan_for_test(send_bw, one_entry), Error,
                         MessageContains("--use-srq with -c/--connection UD needs 2 scatter entries per shared "
                                         "receive; rxe0 allows 1 (max_srq_sge)"));
  send_bw.qp_type = QpType::rc;
  CHECK(plan_for_test(send_bw, one_entry).shared_receive_depth == 512);
}
