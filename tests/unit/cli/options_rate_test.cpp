// --rate and --burst on the command line: open loop for every latency test
// (the hello then tells the server, whose send and write loops echo), a
// paced sender for the bandwidth tests (not with -b), on the client;
// everything else refused with a message naming what would be right.

#include "catch2_compat.hpp"

#include "cli/options.hpp"
#include "pair_kinds.hpp"
#include "test_helpers.hpp"

using rdmabench::Measurement;
using rdmabench::Operation;
using rdmabench::RateUnit;
using rdmabench::cli::BenchmarkKind;
using rdmabench::cli::parse_command_line;
using rdmabench::cli::UsageError;
using rdmabench::test::kReadBandwidth;
using rdmabench::test::kReadLatency;
using rdmabench::test::kAtomicBandwidth;
using rdmabench::test::kSendBandwidth;
using rdmabench::test::kSendLatency;
using rdmabench::test::kWriteBandwidth;
using rdmabench::test::kWriteLatency;
using rdmabench::test::MessageContains;


TEST_CASE("options: --rate paces a read latency client, 16 in flight unless -t says otherwise", "[options]") {
  const auto cl = parse_command_line(kReadLatency, {"server", "--rate", "2000"});
  REQUIRE(cl.pacing.has_value());
  CHECK(cl.pacing->rate.value == 2000);
  CHECK(cl.pacing->rate.unit == RateUnit::messages_per_second);
  CHECK(cl.pacing->burst == 1);
  CHECK(cl.spec.tx_depth == 16);
  CHECK(cl.spec.open_loop);  // carried in the hello, shown in the JSON parameters
  const auto given = parse_command_line(kReadLatency, {"server", "--rate", "200kpps", "--burst", "4", "-t", "8"});
  CHECK(given.pacing->rate.value == 200000);
  CHECK(given.pacing->burst == 4);
  CHECK(given.spec.tx_depth == 8);
}

TEST_CASE("options: without --rate nothing changes", "[options]") {
  const auto cl = parse_command_line(kReadLatency, {"server"});
  CHECK_FALSE(cl.pacing.has_value());
  CHECK(cl.spec.tx_depth == 1);
  CHECK_FALSE(cl.spec.open_loop);
  CHECK_FALSE(parse_command_line(kSendLatency, {"server"}).spec.open_loop);
}

TEST_CASE("options: --rate runs send and write latency open loop, their server echoing", "[options]") {
  for (const BenchmarkKind& kind : {kSendLatency, kWriteLatency}) {
    INFO(kind.name);
    const auto cl = parse_command_line(kind, {"server", "--rate", "1000", "--burst", "2"});
    REQUIRE(cl.pacing.has_value());
    CHECK(cl.pacing->rate.value == 1000);
    CHECK(cl.pacing->burst == 2);
    CHECK(cl.spec.tx_depth == 16);
    CHECK(cl.spec.open_loop);
    CHECK(rdmabench::server_echoes(cl.spec));
    CHECK(parse_command_line(kind, {"server", "--rate", "1000", "-t", "4"}).spec.tx_depth == 4);
  }
  // The write's target reaps a completion per message: immediate data.
  CHECK(rdmabench::writes_with_immediate(parse_command_line(kWriteLatency, {"server", "--rate", "1000"}).spec));
  CHECK_FALSE(rdmabench::writes_with_immediate(parse_command_line(kWriteLatency, {"server"}).spec));
  // The echo needs a receive for each message in flight, on both sides.
  CHECK(parse_command_line(kSendLatency, {"server", "--rate", "1000", "-r", "16"}).spec.rx_depth == 16);
  REQUIRE_THROWS_MATCHES(parse_command_line(kSendLatency, {"server", "--rate", "1000", "-r", "8"}), UsageError,
                         MessageContains("-r/--rx-depth 8 is below -t/--tx-depth 16") &&
                             MessageContains("give -r 16 or more"));
  CHECK(parse_command_line(kSendLatency, {"server", "-r", "8"}).spec.rx_depth == 8);  // closed loop: one in flight
}

TEST_CASE("options: an open-loop send or write latency needs RC", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kSendLatency, {"server", "--rate", "1000", "-c", "UD"}), UsageError,
                         MessageContains("--rate and -c/--connection UD conflict") &&
                             MessageContains("matches each answer to its message by arrival order") &&
                             MessageContains("use -c RC"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteLatency, {"server", "--rate", "1000", "-c", "UC"}), UsageError,
                         MessageContains("--rate and -c/--connection UC conflict"));
  CHECK(parse_command_line(kSendLatency, {"server", "-c", "UD"}).spec.qp_type == rdmabench::QpType::ud);
}

TEST_CASE("options: --rate and --burst refused where they cannot apply", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"--rate", "1000"}), UsageError,
                         MessageContains("--rate applies to the client"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kSendLatency, {"--rate", "1000"}), UsageError,
                         MessageContains("--rate applies to the client") &&
                             MessageContains("server of rdma_send_lat follows the client"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"server", "--burst", "4"}), UsageError,
                         MessageContains("--burst applies with --rate"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"server", "--rate", "1000", "--burst", "0"}),
                         UsageError, MessageContains("--burst 0 is out of range"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kReadLatency, {"server", "--rate", "10Gb"}), UsageError,
                         MessageContains("unknown unit 'Gb'"));
}

TEST_CASE("options: --rate paces a bandwidth client in its own unit and keeps its -t", "[options]") {
  const auto cl = parse_command_line(kWriteBandwidth, {"server", "--rate", "10Gbps"});
  REQUIRE(cl.pacing.has_value());
  CHECK(cl.pacing->rate.value == 10e9);
  CHECK(cl.pacing->rate.unit == RateUnit::bits_per_second);
  CHECK(cl.pacing->burst == 1);
  CHECK(cl.spec.tx_depth == 128);  // the 16-in-flight default is the latency tests' alone
  const auto bytes = parse_command_line(kSendBandwidth, {"server", "--rate", "500MBps", "--burst", "8"});
  CHECK(bytes.pacing->rate.value == 500e6);
  CHECK(bytes.pacing->rate.unit == RateUnit::bytes_per_second);
  CHECK(bytes.pacing->burst == 8);
  const auto messages = parse_command_line(kReadBandwidth, {"server", "--rate", "200kpps", "-t", "32"});
  CHECK(messages.pacing->rate.value == 200e3);
  CHECK(messages.pacing->rate.unit == RateUnit::messages_per_second);
  CHECK(messages.spec.tx_depth == 32);
  CHECK(parse_command_line(kAtomicBandwidth, {"server", "--rate", "1Mpps"}).pacing.has_value());
}

TEST_CASE("options: --rate refused on a bandwidth server and with -b", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBandwidth, {"--rate", "10Gbps"}), UsageError,
                         MessageContains("--rate applies to the client") &&
                             MessageContains("server of rdma_write_bw"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBandwidth, {"server", "--rate", "10Gbps", "-b"}), UsageError,
                         MessageContains("with -b the server sends too") &&
                             MessageContains("drop -b for a paced run"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBandwidth, {"server", "--burst", "4"}), UsageError,
                         MessageContains("--burst applies with --rate"));
}
