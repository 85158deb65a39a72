// Which timed loop runs a test: the loop table (lib/loops/loop_table.cpp),
// checked without a device. The cases name the loop each kind of test has
// always run; the sweep over every coherent spec proves no spec falls
// through the table and no row is dead.

#include "catch2_compat.hpp"

#include <set>
#include <string>

#include "loops/loop_table.hpp"

using namespace rdmabench;
using detail::choose_loop;
using detail::loop_table;

namespace {

TestSpec loop_spec_of(Operation operation, Measurement measurement) {
  TestSpec spec;
  spec.operation = operation;
  spec.measurement = measurement;
  return spec;
}

std::string loop_for(const TestSpec& spec, Role role) { return choose_loop(spec, role).name; }

}  // namespace

TEST_CASE("loop table: bandwidth streams on the sender, the receiver of sends reaps", "[loops]") {
  const auto write_bw = loop_spec_of(Operation::write, Measurement::bandwidth);
  CHECK(loop_for(write_bw, Role::client) == "streaming bandwidth");
  CHECK(loop_for(write_bw, Role::server) == "streaming bandwidth");  // passive: returns no figures
  auto send_bw = loop_spec_of(Operation::send, Measurement::bandwidth);
  CHECK(loop_for(send_bw, Role::client) == "streaming bandwidth");
  CHECK(loop_for(send_bw, Role::server) == "send bandwidth, receiving side (RC)");
  send_bw.qp_type = QpType::ud;
  CHECK(loop_for(send_bw, Role::server) == "send bandwidth, receiving side (UC, UD: counts the loss)");
  send_bw.qp_type = QpType::rc;
  send_bw.bidirectional = true;  // both sides send: both stream
  CHECK(loop_for(send_bw, Role::server) == "streaming bandwidth");
  auto imm_bw = loop_spec_of(Operation::write, Measurement::bandwidth);
  imm_bw.write_with_imm = true;  // the target reaps a completion per write, as for sends
  CHECK(loop_for(imm_bw, Role::server) == "send bandwidth, receiving side (RC)");
}

TEST_CASE("loop table: latency by operation, closed and open loop", "[loops]") {
  const auto write_lat = loop_spec_of(Operation::write, Measurement::latency);
  CHECK(loop_for(write_lat, Role::client) == "write latency (ping-pong, polling the last byte)");
  CHECK(loop_for(write_lat, Role::server) == "write latency (ping-pong, polling the last byte)");
  const auto send_lat = loop_spec_of(Operation::send, Measurement::latency);
  CHECK(loop_for(send_lat, Role::server) == "send latency (ping-pong of receives)");
  for (auto operation : {Operation::read, Operation::atomic}) {
    auto lat = loop_spec_of(operation, Measurement::latency);
    CHECK(loop_for(lat, Role::client) == "round trip (one read or atomic at a time)");
    CHECK(loop_for(lat, Role::server) == "one-sided latency, passive side");
    lat.open_loop = true;
    CHECK(loop_for(lat, Role::client) == "open-loop round trip (reads, atomics)");
    CHECK(loop_for(lat, Role::server) == "one-sided latency, passive side");
  }
  for (auto operation : {Operation::write, Operation::send}) {
    auto lat = loop_spec_of(operation, Measurement::latency);
    lat.open_loop = true;  // an open-loop write carries immediate data: the server echoes it
    CHECK(loop_for(lat, Role::client) == "open-loop echo (the server answers each message)");
    CHECK(loop_for(lat, Role::server) == "open-loop echo (the server answers each message)");
  }
}

TEST_CASE("loop table: every coherent spec finds a loop, and every row is used", "[loops]") {
  std::set<std::string> used;
  int coherent = 0;
  for (auto operation : {Operation::write, Operation::read, Operation::send, Operation::atomic})
    for (auto measurement : {Measurement::bandwidth, Measurement::latency})
      for (auto qp_type : {QpType::rc, QpType::uc, QpType::ud})
        for (bool imm : {false, true})
          for (bool open_loop : {false, true})
            for (bool bidirectional : {false, true}) {
              TestSpec spec = loop_spec_of(operation, measurement);
              spec.qp_type = qp_type;
              spec.write_with_imm = imm;
              spec.open_loop = open_loop && measurement == Measurement::latency;
              spec.bidirectional = bidirectional && measurement == Measurement::bandwidth;
              if (find_unsupported(spec)) continue;
              ++coherent;
              for (auto role : {Role::client, Role::server}) {
                INFO(test_name(spec) << " " << to_string(qp_type) << (imm ? " imm" : "")
                                     << (spec.open_loop ? " open" : "") << (spec.bidirectional ? " -b" : ""));
                REQUIRE_NOTHROW(used.insert(choose_loop(spec, role).name));
              }
            }
  CHECK(coherent > 20);
  for (const auto& row : loop_table()) {
    INFO(row.name);
    CHECK(used.count(row.name) == 1);
  }
}
