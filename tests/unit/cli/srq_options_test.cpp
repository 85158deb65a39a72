// Shared receive queues (--use-srq, perftest's --use_srq): send tests only,
// and both sides give it or neither (the receiving side owns the queue, and
// with -b and in send_lat both sides receive).

#include "catch2_compat.hpp"

#include "cli/options.hpp"
#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/control/wire.hpp"
#include "pair_kinds.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;
using rdmabench::test::kReadLatency;
using rdmabench::test::kSendBandwidth;
using rdmabench::test::kSendLatency;
using rdmabench::test::kWriteBandwidth;

TEST_CASE("srq: --use-srq and perftest's --use_srq land in the spec of the send tests", "[srq][options]") {
  CHECK_FALSE(cli::parse_command_line(kSendBandwidth, {}).spec.use_srq);
  CHECK(cli::parse_command_line(kSendBandwidth, {"--use-srq", "-q", "4"}).spec.use_srq);
  CHECK(cli::parse_command_line(kSendBandwidth, {"--use_srq", "server"}).spec.use_srq);
  CHECK(cli::parse_command_line(kSendLatency, {"--use-srq"}).spec.use_srq);
  CHECK(cli::parse_command_line(kSendLatency, {"--use_srq", "server"}).spec.use_srq);
  // --help of the send tests lists it; of the others, not.
  CHECK(cli::parse_command_line(kSendBandwidth, {"-h"}).help_text.find("--use-srq") != std::string::npos);
  CHECK(cli::parse_command_line(kWriteBandwidth, {"-h"}).help_text.find("--use-srq") == std::string::npos);
}

TEST_CASE("srq: the tests that post no receives of their own refuse --use-srq by name", "[srq][options]") {
  const std::string why = "--use-srq applies to send tests (rdma_send_bw and rdma_send_lat), whose receiving "
                          "side posts receives; ";
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kWriteBandwidth, {"--use-srq"}), cli::UsageError,
                         MessageContains(why + "rdma_write_bw is not one of them"));
  // perftest's spelling too: refused as ours, not as perftest's unknown option.
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kWriteBandwidth, {"--use_srq", "--write-with-imm"}),
                         cli::UsageError, MessageContains(why + "rdma_write_bw is not one of them"));
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kReadLatency, {"--use-srq", "server"}), cli::UsageError,
                         MessageContains(why + "rdma_read_lat is not one of them"));
  // A spec made without the command line is refused the same way.
  TestSpec write;
  write.use_srq = true;
  REQUIRE(find_unsupported(write).has_value());
  CHECK_THAT(*find_unsupported(write), Catch::Contains("rdma_write_bw is not one of them"));
}

TEST_CASE("srq: a server and a client that disagree on --use-srq are refused, naming it", "[srq][parameters]") {
  TestSpec server;
  server.operation = Operation::send;
  TestSpec client = server;
  client.use_srq = true;
  REQUIRE(find_conflict(server, client).has_value());
  CHECK(*find_conflict(server, client) ==
        "mismatched --use-srq: the client gives it, the server does not; give --use-srq on both sides or on "
        "neither");
  REQUIRE(find_conflict(client, server).has_value());
  CHECK_THAT(*find_conflict(client, server), Catch::Contains("the server gives it, the client does not"));
  CHECK_FALSE(find_conflict(client, client).has_value());
  // Must match, so never adopted: the server keeps its own.
  CHECK_FALSE(adopt_client_choice(server, client).use_srq);
}

TEST_CASE("srq: the hello carries --use-srq", "[srq][wire]") {
  TestSpec spec;
  spec.operation = Operation::send;
  spec.queue_pairs = 4;
  spec.use_srq = true;
  const auto decoded = wire::decode(wire::encode(wire::Hello{spec}));
  REQUIRE(std::holds_alternative<wire::Hello>(decoded));
  CHECK(std::get<wire::Hello>(decoded).spec.use_srq);
  spec.use_srq = false;
  CHECK_FALSE(std::get<wire::Hello>(wire::decode(wire::encode(wire::Hello{spec}))).spec.use_srq);
}
