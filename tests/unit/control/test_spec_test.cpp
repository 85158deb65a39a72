// What both peers must agree on: find_conflict names the disagreeing option,
// and ignores what the server adopts from the client.

#include "catch2_compat.hpp"

#include <cstdint>
#include <vector>

#include "rdmabench/control/test_parameters.hpp"

using namespace rdmabench;

namespace {

TestSpec spec(Measurement measurement, ConnectMethod connect = ConnectMethod::tcp_exchange) {
  TestSpec s;
  s.measurement = measurement;
  s.connect = connect;
  return s;
}

}  // namespace

TEST_CASE("test_spec: test names follow the binaries", "[test_spec]") {
  CHECK(test_name(spec(Measurement::bandwidth)) == "write_bw");
  CHECK(test_name(spec(Measurement::latency)) == "write_lat");
  CHECK(to_string(ConnectMethod::tcp_exchange) == "out-of-band TCP");
  CHECK(to_string(ConnectMethod::rdma_cm) == "rdma_cm");
}

TEST_CASE("test_spec: a different measurement names both binaries", "[test_spec]") {
  const auto conflict = find_conflict(spec(Measurement::bandwidth), spec(Measurement::latency));
  REQUIRE(conflict);
  CHECK(*conflict ==
        "mismatched test: the server runs rdma_write_bw, the client rdma_write_lat; "
        "run the same binary on both sides");
  const auto reverse = find_conflict(spec(Measurement::latency), spec(Measurement::bandwidth));
  REQUIRE(reverse);
  CHECK_THAT(*reverse, Catch::Contains("server runs rdma_write_lat, the client "
                                                 "rdma_write_bw"));
}

TEST_CASE("test_spec: a different connection method names --rdma-cm", "[test_spec]") {
  const auto conflict = find_conflict(spec(Measurement::latency, ConnectMethod::rdma_cm),
                                      spec(Measurement::latency, ConnectMethod::tcp_exchange));
  REQUIRE(conflict);
  CHECK(*conflict ==
        "mismatched --rdma-cm: the server connects with rdma_cm, the client with out-of-band TCP; "
        "give -R/--rdma-cm on both sides or on neither");
}

TEST_CASE("test_spec: the measurement is reported before the connection method", "[test_spec]") {
  const auto conflict = find_conflict(spec(Measurement::bandwidth, ConnectMethod::rdma_cm),
                                      spec(Measurement::latency, ConnectMethod::tcp_exchange));
  REQUIRE(conflict);
  CHECK_THAT(*conflict, Catch::StartsWith("mismatched test"));
}

TEST_CASE("test_spec: sizes, iterations, warmup and depth are the client's to choose",
          "[test_spec]") {
  const TestSpec server = spec(Measurement::bandwidth);
  TestSpec client = server;
  client.sizes = all_sizes();
  client.iterations = 1;
  client.warmup = 12345;
  client.tx_depth = 1;
  CHECK_FALSE(find_conflict(server, client).has_value());
  CHECK_FALSE(find_conflict(server, server).has_value());
  const TestSpec cm = spec(Measurement::latency, ConnectMethod::rdma_cm);
  CHECK_FALSE(find_conflict(cm, cm).has_value());
}

TEST_CASE("test_spec: all_sizes is perftest's -a sweep", "[test_spec]") {
  const auto sizes = all_sizes();
  REQUIRE(sizes.size() == 23);
  CHECK(sizes.front() == 2);
  CHECK(sizes.back() == 8u * 1024 * 1024);
  for (std::size_t i = 1; i < sizes.size(); ++i) CHECK(sizes[i] == 2 * sizes[i - 1]);
}

TEST_CASE("test_spec: largest_size", "[test_spec]") {
  TestSpec s;
  s.sizes = {4, 65536, 8};
  CHECK(largest_size(s) == 65536);
  s.sizes = all_sizes();
  CHECK(largest_size(s) == 8u << 20);
  s.sizes.clear();
  CHECK(largest_size(s) == 0);
}

TEST_CASE("test_spec: signal_interval is -Q, or 3/4 of the queue up to 100", "[test_spec]") {
  using rdmabench::signal_interval;
  rdmabench::TestSpec s;
  s.tx_depth = 128;
  CHECK(signal_interval(s, 64) == 96);
  s.tx_depth = 1024;
  CHECK(signal_interval(s, 64) == 100);
  s.tx_depth = 2;
  CHECK(signal_interval(s, 64) == 1);
  s.cq_mod = 100;
  CHECK(signal_interval(s, 64) == 100);
}

TEST_CASE("test_spec: by default a completion comes at least every 64 KiB: -Q overrides", "[test_spec]") {
  using rdmabench::signal_interval;
  rdmabench::TestSpec s;
  s.tx_depth = 128;
  CHECK(signal_interval(s, 1024) == 64);
  CHECK(signal_interval(s, 4096) == 16);
  CHECK(signal_interval(s, 65536) == 1);
  CHECK(signal_interval(s, 8u << 20) == 1);
  s.cq_mod = 100;
  CHECK(signal_interval(s, 65536) == 100);  // the user's choice, even at 6.4 MiB per completion
}

TEST_CASE("test_spec: reads are named and served passively", "[test_spec]") {
  rdmabench::TestSpec read_lat;
  read_lat.operation = rdmabench::Operation::read;
  read_lat.measurement = rdmabench::Measurement::latency;
  CHECK(rdmabench::test_name(read_lat) == "read_lat");
  CHECK(rdmabench::server_is_passive(read_lat));
  rdmabench::TestSpec write_lat = read_lat;
  write_lat.operation = rdmabench::Operation::write;
  CHECK_FALSE(rdmabench::server_is_passive(write_lat));  // write latency is a ping-pong
  auto conflict = rdmabench::find_conflict(read_lat, write_lat);
  REQUIRE(conflict);
  CHECK_THAT(*conflict, Catch::Contains("the server runs rdma_read_lat, the client rdma_write_lat"));
}

TEST_CASE("test_spec: both sides of a send test are active", "[test_spec]") {
  rdmabench::TestSpec send_bw;
  send_bw.operation = rdmabench::Operation::send;
  send_bw.measurement = rdmabench::Measurement::bandwidth;
  CHECK(rdmabench::test_name(send_bw) == "send_bw");
  CHECK_FALSE(rdmabench::server_is_passive(send_bw));  // it reaps every receive
  rdmabench::TestSpec write_bw = send_bw;
  write_bw.operation = rdmabench::Operation::write;
  CHECK(rdmabench::server_is_passive(write_bw));
}

TEST_CASE("test_spec: atomics are passive on the server and must agree on -A", "[test_spec]") {
  rdmabench::TestSpec server;
  server.operation = rdmabench::Operation::atomic;
  server.measurement = rdmabench::Measurement::latency;
  CHECK(rdmabench::test_name(server) == "atomic_lat");
  CHECK(rdmabench::server_is_passive(server));
  auto client = server;
  client.atomic = rdmabench::AtomicOp::compare_and_swap;
  const auto conflict = rdmabench::find_conflict(server, client);
  REQUIRE(conflict);
  CHECK_THAT(*conflict, Catch::Contains("mismatched -A/--atomic-type: the server runs FETCH_AND_ADD, the client CMP_AND_SWAP"));
}

TEST_CASE("test spec: -b must be given on both sides", "[spec]") {
  rdmabench::TestSpec server, client;
  client.bidirectional = true;
  const auto conflict = rdmabench::find_conflict(server, client);
  REQUIRE(conflict);
  CHECK_THAT(*conflict, Catch::Contains("mismatched -b/--bidirectional: the client gives it"));
  server.bidirectional = true;
  CHECK_FALSE(rdmabench::find_conflict(server, client));
}

TEST_CASE("test_spec: the idle server of a latency test spins where the transport says, or as told",
          "[test_spec]") {
  using rdmabench::PassiveWait;
  using rdmabench::server_spins_while_passive;
  rdmabench::TestSpec spec;
  spec.operation = rdmabench::Operation::read;
  spec.measurement = rdmabench::Measurement::latency;
  CHECK(server_spins_while_passive(spec, true));         // auto on a transport that spins
  CHECK_FALSE(server_spins_while_passive(spec, false));  // auto on one that sleeps
  spec.operation = rdmabench::Operation::atomic;
  spec.passive_wait = PassiveWait::spin;
  CHECK(server_spins_while_passive(spec, false));
  spec.passive_wait = PassiveWait::sleep;
  CHECK_FALSE(server_spins_while_passive(spec, true));
  spec.passive_wait = PassiveWait::spin;
  spec.measurement = rdmabench::Measurement::bandwidth;  // a passive bandwidth server sleeps
  CHECK_FALSE(server_spins_while_passive(spec, true));
  spec.operation = rdmabench::Operation::write;
  spec.measurement = rdmabench::Measurement::latency;  // a ping-pong: the server takes part
  CHECK_FALSE(server_spins_while_passive(spec, true));
  CHECK(rdmabench::to_string(PassiveWait::automatic) == "auto");
}

TEST_CASE("test spec: with -b no server is passive", "[spec]") {
  rdmabench::TestSpec spec;
  spec.operation = rdmabench::Operation::read;
  CHECK(rdmabench::server_is_passive(spec));
  spec.bidirectional = true;
  CHECK_FALSE(rdmabench::server_is_passive(spec));
}

TEST_CASE("test_spec: a different -c names the option and both queue pair types", "[test_spec]") {
  TestSpec server, client;
  server.operation = client.operation = Operation::send;
  client.qp_type = QpType::ud;
  const auto conflict = find_conflict(server, client);
  REQUIRE(conflict);
  CHECK(*conflict ==
        "mismatched -c/--connection: the server uses RC queue pairs, the client UD; give the "
        "same -c on both sides");
  client.qp_type = QpType::rc;
  CHECK_FALSE(find_conflict(server, client));
  CHECK(to_string(QpType::uc) == "UC");
}

TEST_CASE("test_spec: find_unsupported accepts RC with everything", "[test_spec]") {
  for (auto op : {Operation::write, Operation::read, Operation::send, Operation::atomic}) {
    TestSpec s;
    s.operation = op;
    s.connect = ConnectMethod::rdma_cm;
    s.queue_pairs = 4;
    CHECK_FALSE(find_unsupported(s));
  }
}

TEST_CASE("test_spec: -b with send bandwidth over UC or UD is refused, naming both", "[test_spec]") {
  for (auto type : {QpType::uc, QpType::ud}) {
    TestSpec s;
    s.operation = Operation::send;
    s.qp_type = type;
    s.bidirectional = true;
    const auto why = find_unsupported(s);
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains("-b/--bidirectional and -c/--connection " + to_string(type)));
  }
}

TEST_CASE("test spec: --write-with-imm must be given on both sides, and makes the target reap", "[spec]") {
  TestSpec server, client;
  client.write_with_imm = true;
  const auto conflict = find_conflict(server, client);
  REQUIRE(conflict);
  CHECK_THAT(*conflict, Catch::Contains("mismatched --write-with-imm: the client gives it"));
  CHECK(uses_receives(client));
  CHECK_FALSE(uses_receives(server));
  CHECK_FALSE(server_is_passive(client));  // write_bw's target counts arrivals
}

TEST_CASE("test_spec: an open-loop send or write latency server echoes: writes carry immediate data",
          "[test_spec]") {
  rdmabench::TestSpec write_lat;
  write_lat.operation = rdmabench::Operation::write;
  write_lat.measurement = rdmabench::Measurement::latency;
  CHECK_FALSE(rdmabench::server_echoes(write_lat));  // the closed ping-pong polls the last byte
  CHECK_FALSE(rdmabench::writes_with_immediate(write_lat));
  write_lat.open_loop = true;
  CHECK(rdmabench::server_echoes(write_lat));
  CHECK(rdmabench::writes_with_immediate(write_lat));
  CHECK(rdmabench::uses_receives(write_lat));
  CHECK_FALSE(rdmabench::server_is_passive(write_lat));
  rdmabench::TestSpec send_lat = write_lat;
  send_lat.operation = rdmabench::Operation::send;
  CHECK(rdmabench::server_echoes(send_lat));
  CHECK_FALSE(rdmabench::writes_with_immediate(send_lat));
  // A read's server stays passive with --rate: its NIC answers alone.
  rdmabench::TestSpec read_lat = write_lat;
  read_lat.operation = rdmabench::Operation::read;
  CHECK_FALSE(rdmabench::server_echoes(read_lat));
  CHECK(rdmabench::server_is_passive(read_lat));
  // open_loop belongs to latency tests; a paced write bandwidth stays passive.
  rdmabench::TestSpec write_bw = write_lat;
  write_bw.measurement = rdmabench::Measurement::bandwidth;
  CHECK_FALSE(rdmabench::writes_with_immediate(write_bw));
  CHECK(rdmabench::server_is_passive(write_bw));
}

TEST_CASE("test_spec: multicast is sends over UD, as a hello must say too", "[test_spec][multicast]") {
  TestSpec s;
  s.operation = Operation::send;
  s.qp_type = QpType::ud;
  s.multicast_receivers = 4;
  CHECK_FALSE(find_unsupported(s));  // send_bw to 4 receivers
  s.measurement = Measurement::latency;
  s.multicast_receivers = 1;
  CHECK_FALSE(find_unsupported(s));  // send_lat to 1
  s.duration_s = 5;
  CHECK_FALSE(find_unsupported(s));  // a timed ping-pong knows its messages
  // What no command line gives, but a hostile hello could.
  TestSpec write = s;
  write.operation = Operation::write;
  write.duration_s = 0;
  const auto why = find_unsupported(write);
  REQUIRE(why);
  CHECK(*why == "-g/--mcg applies to send tests: a multicast group receives sends only; rdma_write_lat has none");
}
