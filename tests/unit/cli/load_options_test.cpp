// Latency under load (--load-qps): its options (client only, latency tests
// only, bounded, saying what would be right) and its rows of the parameter
// table (adopted by the server, carried and bounded by the hello).

#include "catch2_compat.hpp"

#include "cli/options.hpp"
#include "memory/memory_budget.hpp"
#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/control/wire.hpp"
#include "rdmabench/verbs/error.hpp"
#include "pair_kinds.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

using rdmabench::test::kReadLatency;
using rdmabench::test::kWriteBandwidth;
using rdmabench::test::kWriteLatency;

TEST_CASE("load: --load-qps, --load-size and --load-op land in the spec, write 64K by default", "[load]") {
  const auto plain = cli::parse_command_line(kReadLatency, {"server"});
  CHECK(plain.spec.load_queue_pairs == 0);
  CHECK(plain.spec.load_size == 65536);
  CHECK(plain.spec.load_op == LoadOp::write);
  const auto loaded = cli::parse_command_line(kReadLatency, {"server", "--load-qps", "4"});
  CHECK(loaded.spec.load_queue_pairs == 4);
  CHECK(loaded.spec.load_size == 65536);
  CHECK(loaded.spec.load_op == LoadOp::write);
  const auto shaped = cli::parse_command_line(
      kWriteLatency, {"server", "--load-qps", "64", "--load-size", "1M", "--load-op", "read", "-R"});
  CHECK(shaped.spec.load_queue_pairs == 64);
  CHECK(shaped.spec.load_size == 1u << 20);
  CHECK(shaped.spec.load_op == LoadOp::read);
  const auto sends = cli::parse_command_line(kReadLatency, {"server", "--load-qps", "2", "--load-op", "send"});
  CHECK(sends.spec.load_op == LoadOp::send);
}

TEST_CASE("load: the load's options are refused where they cannot apply, saying what would", "[load]") {
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kReadLatency, {"server", "--load-qps", "65"}),
                         cli::UsageError,
                         MessageContains("--load-qps 65 is out of range: expected 1 to 64 load queue pairs"));
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kReadLatency, {"server", "--load-qps", "0"}),
                         cli::UsageError, MessageContains("--load-qps 0 is out of range: expected 1 to 64"));
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kWriteBandwidth, {"server", "--load-qps", "4"}),
                         cli::UsageError,
                         MessageContains("--load-qps applies to latency tests (rdma_*_lat)"));
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kReadLatency, {"--load-qps", "4"}), cli::UsageError,
                         MessageContains("--load-qps applies to the client"));
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kReadLatency, {"server", "--load-size", "4K"}),
                         cli::UsageError, MessageContains("give --load-qps N with them"));
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kReadLatency, {"server", "--load-op", "read"}),
                         cli::UsageError, MessageContains("give --load-qps N with them"));
  REQUIRE_THROWS_MATCHES(
      cli::parse_command_line(kReadLatency, {"server", "--load-qps", "2", "--load-op", "atomic"}),
      cli::UsageError, MessageContains("--load-op atomic is unknown: expected write, read or send"));
  REQUIRE_THROWS_MATCHES(
      cli::parse_command_line(kReadLatency, {"server", "--load-qps", "2", "--load-size", "2G"}),
      cli::UsageError, MessageContains("--load-size 2147483648 is out of range: expected 1 to 1073741824 bytes"));
  REQUIRE_THROWS_MATCHES(
      cli::parse_command_line(kWriteLatency, {"server", "--load-qps", "2", "-c", "UC"}), cli::UsageError,
      MessageContains("--load-qps and -c/--connection UC conflict"));
}

TEST_CASE("load: the server adopts the client's load from the hello, which carries it", "[load]") {
  TestSpec client;
  client.operation = Operation::read;
  client.measurement = Measurement::latency;
  client.load_queue_pairs = 16;
  client.load_size = 4096;
  client.load_op = LoadOp::read;
  TestSpec server = client;
  server.load_queue_pairs = 0;
  server.load_size = 65536;
  server.load_op = LoadOp::write;
  CHECK_FALSE(find_conflict(server, client).has_value());
  const TestSpec adopted = adopt_client_choice(server, client);
  CHECK(adopted.load_queue_pairs == 16);
  CHECK(adopted.load_size == 4096);
  CHECK(adopted.load_op == LoadOp::read);
  CHECK(std::get<wire::Hello>(wire::decode(wire::encode(wire::Hello{client}))).spec == client);
  // A hostile hello is refused by the same bounds as the command line.
  client.load_queue_pairs = 65;
  REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(wire::Hello{client})), Error,
                         MessageContains("--load-qps 65 is out of range: expected 1 to 64"));
  client.load_queue_pairs = 4;
  client.load_size = 0;
  REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(wire::Hello{client})), Error,
                         MessageContains("--load-size 0 is out of range"));
}

TEST_CASE("load: the load's two buffers count in the memory a run needs, and are named", "[load]") {
  TestSpec s;
  s.measurement = Measurement::latency;
  s.duration_s = 3;
  s.sizes = {4096};
  CHECK(detail::bytes_needed(s) == 2 * 4096);
  s.load_queue_pairs = 4;  // one pair of buffers, whatever the number of load QPs
  s.load_size = std::uint64_t{1} << 30;
  CHECK(detail::bytes_needed(s) == 2 * 4096 + (std::uint64_t{2} << 30));
  const auto problem = detail::find_memory_shortfall(s, std::uint64_t{1} << 30);
  REQUIRE(problem.has_value());
  CHECK_THAT(*problem, Catch::Contains("and two 1073741824-byte buffers for --load-size"));
  CHECK_THAT(*problem, Catch::EndsWith("give a smaller --load-size"));
  s.load_size = 4096;  // now the messages' own buffers are the larger part
  s.sizes = {std::uint64_t{1} << 30};
  const auto sizes = detail::find_memory_shortfall(s, std::uint64_t{1} << 30);
  REQUIRE(sizes.has_value());
  CHECK_THAT(*sizes, Catch::EndsWith("give a smaller -s"));
}
