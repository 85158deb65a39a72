// -g/--mcg and -M/--mgid on the command line: bounds, what they imply (UD),
// and every combination refused before any device is touched, each naming
// the options and what to give instead. (perftest's spellings of them:
// perftest_spellings_test.cpp.)

#include "catch2_compat.hpp"

#include <string>
#include <vector>

#include "cli/benchmark_kinds.hpp"
#include "cli/options.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "test_helpers.hpp"

using rdmabench::QpType;
using rdmabench::cli::benchmark_kind;
using rdmabench::cli::parse_command_line;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;

TEST_CASE("multicast options: -g implies UD and counts 1 to 256 receiving QPs", "[options][multicast]") {
  const auto& send_bw = benchmark_kind("rdma_send_bw");
  const auto one = parse_command_line(send_bw, {"-g", "-s", "512"});
  CHECK(one.spec.multicast_receivers == 1u);
  CHECK(one.spec.qp_type == QpType::ud);
  CHECK(parse_command_line(send_bw, {"-g", "-c", "UD"}).spec.qp_type == QpType::ud);
  CHECK(parse_command_line(send_bw, {"-g", "256"}).spec.multicast_receivers == 256u);
  CHECK(parse_command_line(send_bw, {}).spec.multicast_receivers == 0u);  // no multicast unless asked
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "0"}), UsageError,
                         MessageContains("-g/--mcg 0 is out of range: expected 1 to 256 receiving queue pairs"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"--mcg=257"}), UsageError,
                         MessageContains("-g/--mcg 257 is out of range: expected 1 to 256 receiving queue pairs"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"--mcg=two"}), UsageError, MessageContains("mcg"));
}

TEST_CASE("multicast options: combinations that cannot multicast are refused by name", "[options][multicast]") {
  const auto& send_bw = benchmark_kind("rdma_send_bw");
  const auto& send_lat = benchmark_kind("rdma_send_lat");
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-c", "RC"}), UsageError,
                         MessageContains("-g/--mcg and -c/--connection RC conflict: a multicast group delivers "
                                         "UD datagrams only; drop -c (-g implies UD) or give -c UD"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-c", "UC"}), UsageError,
                         MessageContains("-g/--mcg and -c/--connection UC conflict"));
  REQUIRE_THROWS_MATCHES(parse_command_line(benchmark_kind("rdma_write_bw"), {"-g"}), UsageError,
                         MessageContains("-g/--mcg applies to send tests; rdma_write_bw sends no messages a "
                                         "group could receive"));
  REQUIRE_THROWS_MATCHES(parse_command_line(benchmark_kind("rdma_read_lat"), {"-M", "239.1.1.1"}), UsageError,
                         MessageContains("-M/--mgid applies to send tests; rdma_read_lat"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_lat, {"-g", "2"}), UsageError,
                         MessageContains("-g/--mcg 2: rdma_send_lat answers each message from one receiver"));
  CHECK(parse_command_line(send_lat, {"-g"}).spec.multicast_receivers == 1u);
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-q", "4"}), UsageError,
                         MessageContains("-q/--qp 4 and -g/--mcg conflict: the client sends to the group from "
                                         "one queue pair; for 4 receiving queue pairs on the server give -g 4"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-R"}), UsageError,
                         MessageContains("-R/--rdma-cm and -g/--mcg conflict"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-b"}), UsageError,
                         MessageContains("-b/--bidirectional and -g/--mcg conflict"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-D", "2"}), UsageError,
                         MessageContains("-D/--duration and -g/--mcg conflict"));
}

TEST_CASE("multicast options: -M names the group of a -g run, and says what is wrong with it",
          "[options][multicast]") {
  const auto& send_bw = benchmark_kind("rdma_send_bw");
  const auto named = parse_command_line(send_bw, {"-g", "--mgid", "239.7.7.7"});
  REQUIRE(named.side.multicast_group);
  CHECK(rdmabench::format_gid(*named.side.multicast_group) == "::ffff:239.7.7.7");
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-M", "239.7.7.7"}), UsageError,
                         MessageContains("-M/--mgid names the group of a multicast run: add -g/--mcg, or drop -M"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-M", "no-such-group"}), UsageError,
                         MessageContains("-M/--mgid no-such-group is not a GID"));
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "-M", "10.0.2.15"}), UsageError,
                         MessageContains("is not a multicast address"));
}
