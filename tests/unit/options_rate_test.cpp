// --rate and --burst on the command line: open loop for the latency tests
// whose server takes no part (read, atomic), on the client; everything else
// refused with a message naming what would be right.

#include <catch2/catch.hpp>

#include "cli/options.hpp"
#include "test_helpers.hpp"

using rdmabench::Measurement;
using rdmabench::Operation;
using rdmabench::RateUnit;
using rdmabench::cli::BenchmarkKind;
using rdmabench::cli::parse_command_line;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;

namespace {

const BenchmarkKind kReadLatency{"rdma_read_lat", Operation::read, Measurement::latency, 2, 1000, 1};
const BenchmarkKind kWriteLatency{"rdma_write_lat", Operation::write, Measurement::latency, 2, 1000, 1};
const BenchmarkKind kWriteBandwidth{"rdma_write_bw", Operation::write, Measurement::bandwidth, 65536, 5000, 128};

}  // namespace

TEST_CASE("options: --rate paces a read latency client, 16 in flight unless -t says otherwise", "[options]") {
  const auto cl = parse_command_line(kReadLatency, {"server", "--rate", "2000"});
  REQUIRE(cl.pacing.has_value());
  CHECK(cl.pacing->rate.value == 2000);
  CHECK(cl.pacing->rate.unit == RateUnit::messages_per_second);
  CHECK(cl.pacing->burst == 1);
  CHECK(cl.spec.tx_depth == 16);
  const auto given = parse_command_line(kReadLatency, {"server", "--rate", "200kpps", "--burst", "4", "-t", "8"});
  CHECK(given.pacing->rate.value == 200000);
  CHECK(given.pacing->burst == 4);
  CHECK(given.spec.tx_depth == 8);
}

TEST_CASE("options: without --rate nothing changes", "[options]") {
  const auto cl = parse_command_line(kReadLatency, {"server"});
  CHECK_FALSE(cl.pacing.has_value());
  CHECK(cl.spec.tx_depth == 1);
}

TEST_CASE("options: --rate and --burst refused where they cannot apply", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteLatency, {"server", "--rate", "1000"}), UsageError,
                         MessageContains("--rate does not apply to rdma_write_lat yet"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBandwidth, {"server", "--rate", "10Gbps"}), UsageError,
                         MessageContains("rdma_read_lat and rdma_atomic_lat"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"--rate", "1000"}), UsageError,
                         MessageContains("--rate applies to the client"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"server", "--burst", "4"}), UsageError,
                         MessageContains("--burst applies with --rate"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"server", "--rate", "1000", "--burst", "0"}),
                         UsageError, MessageContains("--burst 0 is out of range"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"server", "--rate", "10Gb"}), UsageError,
                         MessageContains("unknown unit 'Gb'"));
}
