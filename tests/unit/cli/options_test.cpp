// Command-line parsing of the benchmark binaries: perftest-like defaults,
// options mapped onto SideConfig and TestSpec, and every mistake reported as
// a UsageError (exit status 2) that names the option.

#include "cli/options.hpp"

#include "catch2_compat.hpp"
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "rdmabench/control/test_spec.hpp"
#include "test_helpers.hpp"
#include "pair_kinds.hpp"

using rdmabench::ConnectMethod;
using rdmabench::GdrMode;
using rdmabench::MemoryChoice;
using rdmabench::Measurement;
using rdmabench::Milliseconds;
using rdmabench::Operation;
using rdmabench::cli::BenchmarkKind;
using rdmabench::cli::parse_command_line;
using rdmabench::cli::parse_size;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;
using Args = std::vector<std::string>;

namespace {

// The product's own rows (bench/cli/benchmark_kinds.cpp).
const BenchmarkKind& kBandwidth = rdmabench::test::kWriteBandwidth;
const BenchmarkKind& kLatency = rdmabench::test::kWriteLatency;

}  // namespace

TEST_CASE("options: bandwidth defaults", "[options]") {
  const auto cl = parse_command_line(kBandwidth, {});
  CHECK_FALSE(cl.is_client());
  CHECK(cl.spec.operation == Operation::write);
  CHECK(cl.spec.measurement == Measurement::bandwidth);
  CHECK(cl.spec.connect == ConnectMethod::tcp_exchange);
  CHECK(cl.spec.sizes == std::vector<std::uint64_t>{65536});
  CHECK(cl.spec.iterations == 5000);
  CHECK(cl.spec.tx_depth == 128);
  CHECK(cl.spec.warmup == 128);  // bandwidth warms up with one queue's worth
  CHECK(cl.side.device.empty());
  CHECK(cl.side.port == 1);
  CHECK_FALSE(cl.side.gid_index.has_value());
  CHECK(cl.side.tcp_port == 18515);
  CHECK(cl.side.timeout == Milliseconds(10000));
  CHECK(cl.side.memory.name() == "host");
  CHECK(cl.side.memory.gdr == GdrMode::automatic);
  CHECK_FALSE(cl.report_gbits);
  CHECK(cl.json_path.empty());
  CHECK(cl.samples_path.empty());
  CHECK_FALSE(cl.show_help);
  CHECK_FALSE(cl.show_version);
}

TEST_CASE("options: latency defaults", "[options]") {
  const auto cl = parse_command_line(kLatency, {});
  CHECK(cl.spec.measurement == Measurement::latency);
  CHECK(cl.spec.sizes == std::vector<std::uint64_t>{2});
  CHECK(cl.spec.iterations == 1000);
  CHECK(cl.spec.tx_depth == 1);
  CHECK(cl.spec.warmup == 100);
}

TEST_CASE("options: the warmup default follows the tx depth on bandwidth only", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"-t", "64"}).spec.warmup == 64);
  CHECK(parse_command_line(kLatency, {"-t", "64"}).spec.warmup == 100);
  CHECK(parse_command_line(kBandwidth, {"-t", "64", "--warmup", "0"}).spec.warmup == 0);
  CHECK(parse_command_line(kLatency, {"--warmup", "5000"}).spec.warmup == 5000);
}

TEST_CASE("options: a bandwidth sweep warms its first size only, unless --warmup is given", "[options]") {
  CHECK(parse_command_line(kBandwidth, {}).spec.warmup_each_size);
  CHECK_FALSE(parse_command_line(kBandwidth, {"-a"}).spec.warmup_each_size);
  CHECK(parse_command_line(kBandwidth, {"-a", "--warmup", "128"}).spec.warmup_each_size);
  CHECK(parse_command_line(kLatency, {"-a"}).spec.warmup_each_size);  // tails would show cold sizes
}

TEST_CASE("options: a positional server address makes a client", "[options]") {
  const auto cl = parse_command_line(kBandwidth, {"192.168.1.10"});
  CHECK(cl.is_client());
  CHECK(cl.side.server == "192.168.1.10");
  // Options may come before or after it.
  const auto later = parse_command_line(kBandwidth, {"-s", "4K", "server.lab", "-n", "10"});
  CHECK(later.side.server == "server.lab");
  CHECK(later.spec.sizes == std::vector<std::uint64_t>{4096});
  CHECK(later.spec.iterations == 10);
}

TEST_CASE("options: two server addresses are a usage error", "[options]") {
  REQUIRE_THROWS_AS(parse_command_line(kBandwidth, {"host1", "host2"}), UsageError);
}

TEST_CASE("options: each option lands in its field", "[options]") {
  const auto cl = parse_command_line(
      kBandwidth, {"-d", "rxe0", "-i", "2", "-x", "3", "-p", "20000", "--timeout", "2.5", "-s",
                   "64K", "-n", "777", "-t", "16", "--warmup", "9", "--mem", "hugepage",
                   "--report-gbits", "--json", "out.jsonl", "10.0.2.15"});
  CHECK(cl.side.device == "rxe0");
  CHECK(cl.side.port == 2);
  REQUIRE(cl.side.gid_index.has_value());
  CHECK(*cl.side.gid_index == 3);
  CHECK(cl.side.tcp_port == 20000);
  CHECK(cl.side.timeout == Milliseconds(2500));
  CHECK(cl.spec.sizes == std::vector<std::uint64_t>{65536});
  CHECK(cl.spec.iterations == 777);
  CHECK(cl.spec.tx_depth == 16);
  CHECK(cl.spec.warmup == 9);
  CHECK(cl.side.memory.name() == "hugepage");
  CHECK(cl.report_gbits);
  CHECK(cl.json_path == "out.jsonl");
  CHECK(cl.side.server == "10.0.2.15");
}

TEST_CASE("options: long forms", "[options]") {
  const auto cl = parse_command_line(
      kLatency, {"--ib-dev=siw0", "--ib-port=1", "--gid-index=0", "--port=30000", "--size=1M",
                 "--iters=3", "--tx-depth=2", "--rdma-cm", "--dump-samples=samples.txt"});
  CHECK(cl.side.device == "siw0");
  CHECK(*cl.side.gid_index == 0);  // 0 is a real index, not "unset"
  CHECK(cl.side.tcp_port == 30000);
  CHECK(cl.spec.sizes == std::vector<std::uint64_t>{1u << 20});
  CHECK(cl.spec.iterations == 3);
  CHECK(cl.spec.tx_depth == 2);
  CHECK(cl.spec.connect == ConnectMethod::rdma_cm);
  CHECK(cl.samples_path == "samples.txt");
}

TEST_CASE("options: -R selects rdma_cm", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"-R"}).spec.connect == ConnectMethod::rdma_cm);
  CHECK(parse_command_line(kLatency, {"-R", "host"}).spec.connect == ConnectMethod::rdma_cm);
}

TEST_CASE("options: --json - means stdout", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"--json", "-"}).json_path == "-");
}

TEST_CASE("options: -a sweeps 2 B to 8 MiB", "[options]") {
  const auto sizes = parse_command_line(kBandwidth, {"-a"}).spec.sizes;
  REQUIRE(sizes.size() == 23);
  CHECK(sizes.front() == 2);
  CHECK(sizes.back() == 8u << 20);
  CHECK(sizes == rdmabench::all_sizes());
}

TEST_CASE("options: -s and -a conflict", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-a", "-s", "4096"}), UsageError,
                         MessageContains("-s/--size") && MessageContains("-a/--all"));
}

TEST_CASE("options: invalid sizes", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-s", "0"}), UsageError,
                         MessageContains("-s/--size 0 is invalid"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-s", "abc"}), UsageError,
                         MessageContains("invalid size 'abc'"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-s", "12Q"}), UsageError,
                         MessageContains("unknown suffix 'Q'"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-s", "0K"}), UsageError,
                         MessageContains("-s/--size 0 is invalid"));
}

TEST_CASE("options: out-of-range numbers name the option and the range", "[options]") {
  struct Case {
    Args args;
    const char* message;
  };
  const Case cases[] = {
      {{"-n", "0"}, "-n/--iters 0 is out of range: expected 1 to 1000000000"},
      {{"-n", "1000000001"}, "-n/--iters 1000000001 is out of range"},
      {{"-t", "0"}, "-t/--tx-depth 0 is out of range: expected 1 to 65536"},
      {{"-t", "65537"}, "-t/--tx-depth 65537 is out of range"},
      {{"-x", "-1"}, "-x/--gid-index -1 is out of range: expected 0 to 65535"},
      {{"-x", "65536"}, "-x/--gid-index 65536 is out of range"},
      {{"-p", "0"}, "-p/--port 0 is out of range: expected 1 to 65534"},
      // 65535 is taken out too: rdma_cm listens on port + 1.
      {{"-p", "65535"}, "-p/--port 65535 is out of range"},
      {{"-p", "70000"}, "-p/--port 70000 is out of range"},
      {{"-i", "0"}, "-i/--ib-port 0 is out of range: expected 1 to 255"},
      {{"-i", "256"}, "-i/--ib-port 256 is out of range"},
      {{"--warmup", "-1"}, "--warmup -1 is out of range"},
      {{"--timeout", "0"}, "--timeout 0 is out of range"},
      {{"--timeout", "-3"}, "--timeout -3 is out of range"},
      {{"--timeout", "86401"}, "--timeout 86401 is out of range"},
  };
  for (const auto& c : cases) {
    INFO(c.args[0] << " " << c.args[1]);
    REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, c.args), UsageError,
                           MessageContains(c.message));
  }
}

TEST_CASE("options: range edges that are valid", "[options]") {
  const auto cl = parse_command_line(
      kBandwidth, {"-n", "1", "-t", "65536", "-x", "65535", "-p", "65534", "-i", "255",
                   "--timeout", "86400"});
  CHECK(cl.spec.iterations == 1);
  CHECK(cl.spec.tx_depth == 65536);
  CHECK(*cl.side.gid_index == 65535);
  CHECK(cl.side.tcp_port == 65534);
  CHECK(cl.side.port == 255);
  CHECK(cl.side.timeout == Milliseconds(86'400'000));
}

TEST_CASE("options: malformed command lines", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--bogus"}), UsageError,
                         MessageContains("--bogus"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-q"}), UsageError,
                         MessageContains("-q"));
  REQUIRE_THROWS_AS(parse_command_line(kBandwidth, {"-n", "many"}), UsageError);
  REQUIRE_THROWS_AS(parse_command_line(kBandwidth, {"-n"}), UsageError);  // value missing
  REQUIRE_THROWS_AS(parse_command_line(kBandwidth, {"-n", "1", "-n", "2"}), UsageError);
}

TEST_CASE("options: --dump-samples belongs to the latency binary", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--dump-samples", "s.txt"}), UsageError,
                         MessageContains("--dump-samples") && MessageContains("rdma_write_bw"));
  CHECK(parse_command_line(kLatency, {"--dump-samples", "s.txt"}).samples_path == "s.txt");
}

TEST_CASE("options: --help and --version stop before validation", "[options]") {
  const auto help = parse_command_line(kBandwidth, {"--help", "-n", "0"});
  CHECK(help.show_help);
  CHECK_THAT(help.help_text, Catch::Contains("Usage: rdma_write_bw") &&
                                 Catch::Contains("--tx-depth") &&
                                 Catch::Contains("default 128"));
  CHECK(parse_command_line(kLatency, {"-h"}).show_help);
  CHECK(parse_command_line(kLatency, {"--version"}).show_version);
}

TEST_CASE("parse_size: plain bytes and binary suffixes", "[options]") {
  CHECK(parse_size("1") == 1);
  CHECK(parse_size("4096") == 4096);
  CHECK(parse_size("100B") == 100);
  CHECK(parse_size("64K") == 65536);
  CHECK(parse_size("64k") == 65536);
  CHECK(parse_size("2KiB") == 2048);
  CHECK(parse_size("8M") == 8u << 20);
  CHECK(parse_size("3MiB") == 3u << 20);
  CHECK(parse_size("1G") == 1u << 30);
  CHECK(parse_size("4GiB") == std::uint64_t{4} << 30);
  CHECK(parse_size("0") == 0);  // parse_size allows it; the -s option rejects it
  CHECK(parse_size("18446744073709551615") == std::numeric_limits<std::uint64_t>::max());
  CHECK(parse_size("17179869183G") == std::uint64_t{17179869183} << 30);
}

TEST_CASE("parse_size: rejects what is not a size", "[options]") {
  for (const char* bad : {"", "abc", "-1", "+5", " 5", "K", "1.5K", "0x10"}) {
    INFO("'" << bad << "'");
    REQUIRE_THROWS_AS(parse_size(bad), UsageError);
  }
  REQUIRE_THROWS_MATCHES(parse_size("abc"), UsageError,
                         MessageContains("invalid size 'abc': expected bytes"));
  REQUIRE_THROWS_MATCHES(parse_size("12Q"), UsageError,
                         MessageContains("invalid size '12Q': unknown suffix 'Q'"));
  REQUIRE_THROWS_MATCHES(parse_size("4KB"), UsageError, MessageContains("unknown suffix 'KB'"));
}

TEST_CASE("parse_size: rejects sizes beyond 64 bits", "[options]") {
  // 2^34 G is 2^64.
  REQUIRE_THROWS_MATCHES(parse_size("17179869184G"), UsageError, MessageContains("too large"));
  REQUIRE_THROWS_AS(parse_size("18446744073709551616"), UsageError);
}

// Timeouts are kept in whole milliseconds, and zero would mean "wait forever"
// to ControlListener::accept: anything under 1 ms is refused, not truncated.
TEST_CASE("options: a --timeout below one millisecond is refused", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--timeout", "0.0004"}), UsageError,
                         MessageContains("--timeout 0.0004 is out of range"));
  CHECK(parse_command_line(kBandwidth, {"--timeout", "0.001"}).side.timeout == Milliseconds(1));
}

TEST_CASE("options: -Q/--cq-mod must fit in the tx depth", "[options]") {
  CHECK(parse_command_line(kBandwidth, {}).spec.cq_mod == 0);  // automatic
  CHECK(parse_command_line(kBandwidth, {"-Q", "100"}).spec.cq_mod == 100);
  CHECK(parse_command_line(kBandwidth, {"-t", "16", "--cq-mod", "16"}).spec.cq_mod == 16);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-t", "16", "-Q", "17"}), UsageError,
                         MessageContains("-Q/--cq-mod 17 exceeds -t/--tx-depth 16"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-Q", "0"}), UsageError,
                         MessageContains("-Q/--cq-mod 0 is out of range"));
}

TEST_CASE("options: --clock chooses the timestamp source", "[options]") {
  using rdmabench::ClockChoice;
  CHECK(parse_command_line(kLatency, {}).clock == ClockChoice::automatic);
  CHECK(parse_command_line(kLatency, {"--clock", "tsc"}).clock == ClockChoice::tsc);
  CHECK(parse_command_line(kLatency, {"--clock", "monotonic"}).clock == ClockChoice::monotonic);
  REQUIRE_THROWS_MATCHES(parse_command_line(kLatency, {"--clock", "hpet"}), UsageError,
                         MessageContains("--clock hpet is unknown: expected auto, tsc or monotonic"));
}

TEST_CASE("options: -r/--rx-depth belongs to send tests", "[options]") {
  const BenchmarkKind& send_bw = rdmabench::test::kSendBandwidth;
  CHECK(parse_command_line(send_bw, {}).spec.rx_depth == 0);  // the transport's default, once known
  CHECK(parse_command_line(send_bw, {"-r", "64"}).spec.rx_depth == 64);
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-r", "0"}), UsageError,
                         MessageContains("-r/--rx-depth 0 is out of range"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-r", "64"}), UsageError,
                         MessageContains("-r/--rx-depth applies to send tests; rdma_write_bw posts no receives"));
}

TEST_CASE("options: -r/--rx-depth of a send ping-pong leaves room for the next message",
          "[options]") {
  const BenchmarkKind& send_lat = rdmabench::test::kSendLatency;
  CHECK(parse_command_line(send_lat, {"-r", "2"}).spec.rx_depth == 2);
  REQUIRE_THROWS_MATCHES(parse_command_line(send_lat, {"-r", "1"}), UsageError,
                         MessageContains("-r/--rx-depth 1 is too small for rdma_send_lat"));
}

TEST_CASE("options: --passive-wait belongs to tests whose server is idle", "[options]") {
  const BenchmarkKind& read_lat = rdmabench::test::kReadLatency;
  using rdmabench::PassiveWait;
  CHECK(parse_command_line(read_lat, {}).spec.passive_wait == PassiveWait::automatic);
  for (const auto& [text, wait] :
       {std::pair{"auto", PassiveWait::automatic}, std::pair{"spin", PassiveWait::spin},
        std::pair{"sleep", PassiveWait::sleep}})
    CHECK(parse_command_line(read_lat, {"--passive-wait", text}).spec.passive_wait == wait);
  for (const auto& [kind, value, message] :
       {std::tuple{read_lat, "poll",
                   "--passive-wait poll is unknown: expected auto, spin or sleep"},
        std::tuple{kLatency, "sleep", "rdma_write_lat is not one of them"},
        std::tuple{kBandwidth, "spin", "rdma_write_bw is not one of them"}})
    REQUIRE_THROWS_MATCHES(parse_command_line(kind, {"--passive-wait", value}), UsageError,
                           MessageContains(message));
}

TEST_CASE("options: --output must name a figure the binary measures", "[options]") {
  using rdmabench::BareFigure;
  CHECK(parse_command_line(kLatency, {"--output", "latency"}).bare_output == BareFigure::latency);
  CHECK(parse_command_line(kBandwidth, {"--output", "bandwidth"}).bare_output == BareFigure::bandwidth);
  CHECK(parse_command_line(kBandwidth, {"--output", "message_rate"}).bare_output ==
        BareFigure::message_rate);
  CHECK_FALSE(parse_command_line(kBandwidth, {}).bare_output);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--output", "latency"}), UsageError,
                         MessageContains("--output latency does not fit rdma_write_bw: expected bandwidth or message_rate"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kLatency, {"--output", "bandwidth"}), UsageError,
                         MessageContains("expected latency"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kLatency, {"--output", "latency", "--json", "-"}), UsageError,
                         MessageContains("--output and --json - both want stdout"));
  CHECK(parse_command_line(kBandwidth, {"--csv", "out.csv"}).csv_path == "out.csv");
}

TEST_CASE("options: atomics take -A and always 8 bytes", "[options]") {
  using rdmabench::AtomicOp;
  const BenchmarkKind& atomic_lat = rdmabench::test::kAtomicLatency;
  CHECK(parse_command_line(atomic_lat, {}).spec.atomic == AtomicOp::fetch_and_add);
  CHECK(parse_command_line(atomic_lat, {"-A", "CMP_AND_SWAP"}).spec.atomic == AtomicOp::compare_and_swap);
  CHECK(parse_command_line(atomic_lat, {"-s", "8"}).spec.sizes == std::vector<std::uint64_t>{8});
  REQUIRE_THROWS_MATCHES(parse_command_line(atomic_lat, {"-A", "SWAP"}), UsageError,
                         MessageContains("-A/--atomic-type SWAP is unknown: expected FETCH_AND_ADD or CMP_AND_SWAP"));
  REQUIRE_THROWS_MATCHES(parse_command_line(atomic_lat, {"-s", "16"}), UsageError,
                         MessageContains("-s/--size 16 is invalid for atomics"));
  REQUIRE_THROWS_MATCHES(parse_command_line(atomic_lat, {"-a"}), UsageError,
                         MessageContains("-a/--all does not apply to atomics"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-A", "FETCH_AND_ADD"}), UsageError,
                         MessageContains("-A/--atomic-type applies to atomic tests; rdma_write_bw runs none"));
}

TEST_CASE("options: -l/--post-list chains requests in bandwidth tests", "[options]") {
  CHECK(parse_command_line(kBandwidth, {}).spec.post_list == 1);
  CHECK(parse_command_line(kBandwidth, {"-l", "16"}).spec.post_list == 16);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-t", "8", "-l", "16"}), UsageError,
                         MessageContains("-l/--post-list 16 exceeds -t/--tx-depth 8"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kLatency, {"-l", "4"}), UsageError,
                         MessageContains("-l/--post-list applies to bandwidth tests"));
}

TEST_CASE("options: -m, --sl, --tclass and -I set the queue pair", "[options]") {
  const auto cl = parse_command_line(kBandwidth, {"-m", "512", "--sl", "3", "--tclass", "106", "-I", "0"});
  CHECK(cl.side.qp.mtu_bytes == 512u);
  CHECK(cl.side.qp.service_level == 3);
  CHECK(cl.side.qp.traffic_class == 106);
  CHECK(cl.side.qp.inline_bytes == 0u);
  const auto defaults = parse_command_line(kBandwidth, {});
  CHECK_FALSE(defaults.side.qp.mtu_bytes);
  CHECK_FALSE(defaults.side.qp.inline_bytes);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-m", "1500"}), UsageError,
                         MessageContains("-m/--mtu 1500 is invalid: expected 256, 512, 1024, 2048 or 4096"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--sl", "16"}), UsageError,
                         MessageContains("--sl 16 is out of range"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--tclass", "256"}), UsageError,
                         MessageContains("--tclass 256 is out of range"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-I", "-1"}), UsageError,
                         MessageContains("-I/--inline-size -1 is out of range"));
}

TEST_CASE("options: --flow-label and --hop-limit set the GRH, within its fields' bounds", "[options]") {
  const auto cl = parse_command_line(kBandwidth, {"--flow-label", "1048575", "--hop-limit", "255"});
  CHECK(cl.side.qp.flow_label == 1048575u);
  CHECK(cl.side.qp.hop_limit == 255);
  const auto defaults = parse_command_line(kLatency, {});
  CHECK(defaults.side.qp.flow_label == 0u);  // the kernel's
  CHECK(defaults.side.qp.hop_limit == 0);     // kDefaultHopLimit
  CHECK(parse_command_line(kLatency, {"--hop-limit", "0"}).side.qp.hop_limit == 0);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--flow-label", "1048576"}), UsageError,
                         MessageContains("--flow-label 1048576 is out of range: expected 0 to 1048575"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--flow-label", "-1"}), UsageError,
                         MessageContains("--flow-label -1 is out of range"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--hop-limit", "256"}), UsageError,
                         MessageContains("--hop-limit 256 is out of range: expected 0 to 255"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--hop-limit", "ten"}), UsageError,
                         MessageContains("--hop-limit ten is not a whole number"));
}

TEST_CASE("options: --source-ip is the client's, and a numeric address", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"--source-ip", "10.0.7.2", "10.0.7.1"}).side.source_address == "10.0.7.2");
  CHECK(parse_command_line(kBandwidth, {"--source-ip", "2001:db8::16", "2001:db8::15"}).side.source_address ==
        "2001:db8::16");
  CHECK(parse_command_line(kBandwidth, {"10.0.7.1"}).side.source_address.empty());
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--source-ip", "10.0.7.2"}), UsageError,
                         MessageContains("--source-ip applies to the client"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--source-ip", "rail1", "10.0.7.1"}), UsageError,
                         MessageContains("--source-ip rail1 is not a numeric IP address"));
}

TEST_CASE("options: --validate is for data transfers, not atomics", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"--validate"}).spec.validate);
  CHECK_FALSE(parse_command_line(kBandwidth, {}).spec.validate);
  const BenchmarkKind& atomic_bw = rdmabench::test::kAtomicBandwidth;
  REQUIRE_THROWS_MATCHES(parse_command_line(atomic_bw, {"--validate"}), UsageError,
                         MessageContains("--validate checks data transfers"));
}

TEST_CASE("options: an unknown --mem is refused before connecting, listing the valid ones", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"--mem", "hugepage"}).side.memory.name() == "hugepage");
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "gpu0"}), UsageError,
                         MessageContains("--mem: unknown memory type 'gpu0'; valid: host, hugepage, "
                                         "cuda:N, cuda-host:N, rocm:N"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "cuda:x"}), UsageError,
                         MessageContains("invalid GPU ordinal 'x' in memory type 'cuda:x'"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "cuda:"}), UsageError,
                         MessageContains("invalid GPU ordinal ''"));
}

TEST_CASE("options: --mem cuda:N, cuda-host:N and rocm:N parse without loading a driver", "[options]") {
  const auto device = parse_command_line(kBandwidth, {"--mem", "cuda:3"}).side.memory;
  CHECK(device.kind == MemoryChoice::Kind::cuda);
  CHECK(device.gpu_device == 3);
  CHECK(device.name() == "cuda:3");
  const auto pinned = parse_command_line(kBandwidth, {"--mem", "cuda-host:1"}).side.memory;
  CHECK(pinned.kind == MemoryChoice::Kind::cuda_host);
  CHECK(pinned.name() == "cuda-host:1");
  CHECK(parse_command_line(kBandwidth, {"--mem", "cuda"}).side.memory.name() == "cuda:0");
  const auto amd = parse_command_line(kBandwidth, {"--mem", "rocm:2"}).side.memory;
  CHECK(amd.kind == MemoryChoice::Kind::rocm);
  CHECK(amd.gpu_device == 2);
  CHECK(amd.name() == "rocm:2");
  CHECK(parse_command_line(kBandwidth, {"--mem", "rocm"}).side.memory.name() == "rocm:0");
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "rocm:-1"}), UsageError,
                         MessageContains("invalid GPU ordinal '-1' in memory type 'rocm:-1'"));
  // The CUDA GPU's PCI address does not name an AMD one.
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "rocm", "--cuda-bus-id", "3b:00.0"}), UsageError,
                         MessageContains("--cuda-bus-id applies to --mem cuda or cuda-host; --mem is rocm"));
}

TEST_CASE("options: --cuda-bus-id names the GPU by PCI address", "[options]") {
  const auto m = parse_command_line(kBandwidth, {"--mem", "cuda", "--cuda-bus-id", "3b:00.0"}).side.memory;
  CHECK(m.cuda_bus_id == "3b:00.0");
  CHECK(m.name() == "cuda:3b:00.0");
  CHECK(parse_command_line(kBandwidth, {"--mem", "cuda-host", "--cuda-bus-id", "0000:AF:1f.7"})
            .side.memory.cuda_bus_id == "0000:AF:1f.7");
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "cuda", "--cuda-bus-id", "3b:00"}),
                         UsageError, MessageContains("--cuda-bus-id 3b:00 is not a PCI address: expected BB:DD.F"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "cuda:1", "--cuda-bus-id", "3b:00.0"}),
                         UsageError, MessageContains("--mem cuda:1 and --cuda-bus-id both name a GPU"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--cuda-bus-id", "3b:00.0"}), UsageError,
                         MessageContains("--cuda-bus-id applies to --mem cuda or cuda-host; --mem is host"));
}

TEST_CASE("options: --gdr picks the GPU registration path, only for device memory", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"--mem", "cuda:0", "--gdr", "dmabuf"}).side.memory.gdr == GdrMode::dmabuf);
  CHECK(parse_command_line(kBandwidth, {"--mem", "cuda:0", "--gdr", "peermem"}).side.memory.gdr == GdrMode::peermem);
  CHECK(parse_command_line(kBandwidth, {"--mem", "cuda:0", "--gdr", "auto"}).side.memory.gdr == GdrMode::automatic);
  CHECK(parse_command_line(kBandwidth, {"--mem", "rocm:0", "--gdr", "peermem"}).side.memory.gdr == GdrMode::peermem);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "cuda:0", "--gdr", "nvlink"}), UsageError,
                         MessageContains("--gdr nvlink is unknown: expected dmabuf, peermem or auto"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--mem", "cuda-host:0", "--gdr", "dmabuf"}), UsageError,
                         MessageContains("--gdr applies to GPU device memory (--mem cuda:N or rocm:N); --mem is "
                                         "cuda-host:0"));
}

TEST_CASE("options: -q, -D and -b land in the spec", "[options]") {
  const auto cl = parse_command_line(kBandwidth, {"-q", "4", "-D", "3", "-b"});
  CHECK(cl.spec.queue_pairs == 4);
  CHECK(cl.spec.duration_s == 3);
  CHECK(cl.spec.bidirectional);
  CHECK(cl.spec.warmup == 0);  // -D leaves out its first tenth instead
  const auto latency = parse_command_line(kLatency, {"--duration", "2"});
  CHECK(latency.spec.duration_s == 2);
}

TEST_CASE("options: -q and -b belong to bandwidth tests", "[options]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kLatency, {"-q", "2"}), UsageError,
                         MessageContains("-q/--qp applies to bandwidth tests"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kLatency, {"-b"}), UsageError,
                         MessageContains("-b/--bidirectional applies to bandwidth tests"));
  const BenchmarkKind& send_bw = rdmabench::test::kSendBandwidth;
  CHECK(parse_command_line(send_bw, {"-b"}).spec.bidirectional);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-q", "0"}), UsageError,
                         MessageContains("-q/--qp 0 is out of range: expected 1 to 1024"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"-q", "1025"}), UsageError,
                         MessageContains("-q/--qp 1025 is out of range"));
}

TEST_CASE("options: -D conflicts are refused, naming both options", "[options]") {
  struct Case {
    BenchmarkKind kind;
    Args args;
    const char* message;
  };
  for (const auto& c : {Case{kBandwidth, {"-D", "2", "-n", "100"}, "-D/--duration and -n/--iters conflict"},
                        Case{kBandwidth, {"-D", "2", "-a"}, "-D/--duration and -a/--all conflict"},
                        Case{kLatency, {"-D", "2", "--warmup", "5"}, "-D/--duration and --warmup conflict"},
                        Case{kLatency, {"-D", "2", "--dump-samples", "x"},
                             "-D/--duration and --dump-samples conflict"},
                        Case{kLatency, {"-D", "0"}, "-D/--duration 0 is out of range: expected 1 to 86400 seconds"}}) {
    INFO(c.message);
    REQUIRE_THROWS_MATCHES(parse_command_line(c.kind, c.args), UsageError, MessageContains(c.message));
  }
}

TEST_CASE("options: CPU placement defaults to the device's NUMA node", "[options]") {
  const auto cl = parse_command_line(kBandwidth, {});
  CHECK(cl.placement.follow_device_numa);
  CHECK_FALSE(cl.placement.cpu.has_value());
  CHECK_FALSE(parse_command_line(kBandwidth, {"--numa", "off"}).placement.follow_device_numa);
  const int cpu = rdmabench::allowed_cpus().front();
  CHECK(parse_command_line(kLatency, {"--cpu", std::to_string(cpu)}).placement.cpu == cpu);
}

TEST_CASE("options: a CPU the process may not use is refused, naming the valid ones", "[options]") {
  const auto valid = rdmabench::format_cpu_list(rdmabench::allowed_cpus());
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--cpu", "100000"}), UsageError,
                         MessageContains("--cpu 100000 is not a CPU this process may run on; valid CPUs: " + valid));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--cpu=-1"}), UsageError,
                         MessageContains("--cpu -1 is not a CPU"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--numa", "on"}), UsageError,
                         MessageContains("--numa on is unknown: expected auto or off"));
}

TEST_CASE("options: -c/--connection chooses the queue pair type, RC by default", "[options]") {
  const BenchmarkKind& send_lat = rdmabench::test::kSendLatency;
  CHECK(parse_command_line(send_lat, {}).spec.qp_type == rdmabench::QpType::rc);
  CHECK(parse_command_line(send_lat, {"-c", "UD"}).spec.qp_type == rdmabench::QpType::ud);
  CHECK(parse_command_line(send_lat, {"--connection", "UC"}).spec.qp_type == rdmabench::QpType::uc);
  CHECK(parse_command_line(kBandwidth, {"-c", "UC"}).spec.qp_type == rdmabench::QpType::uc);
  REQUIRE_THROWS_MATCHES(parse_command_line(send_lat, {"-c", "XRC"}), UsageError,
                         MessageContains("-c/--connection XRC is unknown: expected RC, UC or UD"));
}

TEST_CASE("options: -c combinations no device can run are refused, naming both options", "[options]") {
  const BenchmarkKind& read_bw = rdmabench::test::kReadBandwidth;
  const BenchmarkKind& atomic_lat = rdmabench::test::kAtomicLatency;
  const BenchmarkKind& send_bw = rdmabench::test::kSendBandwidth;
  struct Case {
    BenchmarkKind kind;
    Args args;
    std::vector<const char*> names;  ///< every option the message must name
  };
  for (const auto& c :
       {Case{read_bw, {"-c", "UC"}, {"rdma_read_bw", "-c/--connection UC", "not reads or atomics"}},
        Case{atomic_lat, {"-c", "UD"}, {"rdma_atomic_lat", "-c/--connection UD", "only sends"}},
        Case{kBandwidth, {"-c", "UD"}, {"rdma_write_bw", "-c/--connection UD", "UC for writes"}},
        Case{kLatency, {"-c", "UD"}, {"rdma_write_lat", "-c/--connection UD"}},
        Case{send_bw, {"-c", "UC", "-R"}, {"-R/--rdma-cm", "-c/--connection UC"}},
        Case{send_bw, {"-c", "UD", "-R"}, {"-R/--rdma-cm", "-c/--connection UD"}},
        Case{send_bw, {"-c", "UD", "-q", "2"}, {"-q/--qp 2", "-c/--connection UD"}},
        Case{send_bw, {"-c", "UD", "-D", "2"}, {"-D/--duration", "-c/--connection UD"}},
        Case{send_bw, {"-c", "UC", "-q", "3"}, {"-q/--qp 3", "-c/--connection UC"}}}) {
    INFO(c.names.front());
    for (const char* name : c.names)
      REQUIRE_THROWS_MATCHES(parse_command_line(c.kind, c.args), UsageError, MessageContains(name));
  }
  // What does run: writes over UC, sends over UC and UD, RC with rdma_cm.
  CHECK_NOTHROW(parse_command_line(kLatency, {"-c", "UC"}));
  CHECK_NOTHROW(parse_command_line(send_bw, {"-c", "UD"}));
  CHECK_NOTHROW(parse_command_line(kBandwidth, {"-c", "UC", "-q", "2", "-D", "2"}));
  CHECK_NOTHROW(parse_command_line(read_bw, {"-c", "RC", "-R"}));
}

TEST_CASE("options: --write-with-imm belongs to write tests", "[options]") {
  CHECK(parse_command_line(kBandwidth, {"--write-with-imm"}).spec.write_with_imm);
  CHECK(parse_command_line(kLatency, {"--write-with-imm"}).spec.write_with_imm);
  const BenchmarkKind& read_bw = rdmabench::test::kReadBandwidth;
  REQUIRE_THROWS_MATCHES(parse_command_line(read_bw, {"--write-with-imm"}), UsageError,
                         MessageContains("--write-with-imm applies to write tests; rdma_read_bw"));
}

TEST_CASE("options: --pkey-index is this side's P_Key table index, 0 by default", "[options]") {
  CHECK(parse_command_line(kBandwidth, {}).side.qp.pkey_index == 0);
  CHECK(parse_command_line(kBandwidth, {"--pkey-index", "3"}).side.qp.pkey_index == 3);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--pkey-index", "65536"}), UsageError,
                         MessageContains("--pkey-index 65536 is out of range: expected 0 to 65535"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--pkey-index", "-1"}), UsageError,
                         MessageContains("--pkey-index -1 is out of range"));
}

TEST_CASE("options: --relaxed-ordering is on unless turned off", "[options]") {
  CHECK(parse_command_line(kBandwidth, {}).side.qp.relaxed_ordering);
  CHECK(parse_command_line(kBandwidth, {"--relaxed-ordering", "on"}).side.qp.relaxed_ordering);
  CHECK_FALSE(parse_command_line(kBandwidth, {"--relaxed-ordering", "off"}).side.qp.relaxed_ordering);
  REQUIRE_THROWS_MATCHES(parse_command_line(kBandwidth, {"--relaxed-ordering", "yes"}), UsageError,
                         MessageContains("--relaxed-ordering yes is unknown: expected on or off"));
}
