// perftest's spellings on our binaries (bench/cli/perftest_spellings.cpp):
// its long names and letters mean what they mean there, a perftest option
// we lack is refused naming what to use instead, and a slip of ours gets
// "did you mean".

#include "cli/perftest_spellings.hpp"

#include "catch2_compat.hpp"
#include "cli/options.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/pacing/rate.hpp"
#include "test_helpers.hpp"

using rdmabench::Measurement;
using rdmabench::Operation;
using rdmabench::cli::BenchmarkKind;
using rdmabench::cli::parse_command_line;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;

namespace {

const BenchmarkKind kWriteBw{"rdma_write_bw", Operation::write, Measurement::bandwidth, 65536, 5000, 128};
const BenchmarkKind kWriteLat{"rdma_write_lat", Operation::write, Measurement::latency, 2, 1000, 1};

}  // namespace

TEST_CASE("perftest spellings: its long names mean ours", "[options][perftest]") {
  const auto cl = parse_command_line(kWriteBw, {"--report_gbits", "--cpu_util", "--rdma_cm", "--inline_size=64",
                                                "--post_list", "4", "--pkey_index=0", "host-b"});
  CHECK(cl.report_gbits);
  CHECK(cl.spec.cpu_util);
  CHECK(cl.spec.connect == rdmabench::ConnectMethod::rdma_cm);
  CHECK(cl.side.qp.inline_bytes == 64u);
  CHECK(cl.spec.post_list == 4u);
  CHECK(cl.side.server == "host-b");
}

TEST_CASE("perftest spellings: --use_srq is --use-srq, which the send tests take", "[options][perftest]") {
  const BenchmarkKind send_bw{"rdma_send_bw", Operation::send, Measurement::bandwidth, 65536, 5000, 128};
  CHECK(parse_command_line(send_bw, {"--use_srq", "-q", "4", "host-b"}).spec.use_srq);
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--use_srq"}), UsageError,
                         MessageContains("--use-srq applies to send tests"));
}

TEST_CASE("perftest spellings: options whose value we spell otherwise", "[options][perftest]") {
  SECTION("--use_cuda=N is --mem cuda:N, --use_cuda_dmabuf is --gdr dmabuf") {
    const auto cl = parse_command_line(kWriteBw, {"--use_cuda=1", "--use_cuda_dmabuf"});
    CHECK(cl.side.memory.name() == "cuda:1");
    CHECK(cl.side.memory.gdr == rdmabench::GdrMode::dmabuf);
  }
  SECTION("--use_rocm=N is --mem rocm:N, --use_rocm_dmabuf (AMD's perftest) is --gdr dmabuf") {
    const auto cl = parse_command_line(kWriteBw, {"--use_rocm=2", "--use_rocm_dmabuf"});
    CHECK(cl.side.memory.name() == "rocm:2");
    CHECK(cl.side.memory.gdr == rdmabench::GdrMode::dmabuf);
    CHECK(parse_command_line(kWriteBw, {"--use_rocm", "1"}).side.memory.name() == "rocm:1");
    REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--use_rocm=x"}), UsageError,
                           MessageContains("invalid GPU ordinal 'x' in memory type 'rocm:x'"));
  }
  SECTION("--use_cuda_bus_id alone means CUDA memory on that GPU") {
    const auto cl = parse_command_line(kWriteBw, {"--use_cuda_bus_id", "0000:3b:00.0"});
    CHECK(cl.side.memory.is_cuda());
    CHECK(cl.side.memory.cuda_bus_id == "0000:3b:00.0");
  }
  SECTION("--use_hugepages is --mem hugepage") {
    CHECK(parse_command_line(kWriteBw, {"--use_hugepages"}).side.memory.name() == "hugepage");
  }
  SECTION("--out_json writes perftest's file, --out_json_file names it") {
    CHECK(parse_command_line(kWriteBw, {"--out_json"}).json_path == "perftest_out.json");
    CHECK(parse_command_line(kWriteBw, {"--out_json", "--out_json_file=r.json"}).json_path == "r.json");
  }
  SECTION("--rate_limit in perftest's units: Gb/s by default, M for MiB/s, p for packets/s") {
    const auto gbits = parse_command_line(kWriteBw, {"--rate_limit=10", "host-b"});
    REQUIRE(gbits.pacing);
    CHECK(gbits.pacing->rate.unit == rdmabench::RateUnit::bits_per_second);
    CHECK(gbits.pacing->rate.value == Approx(10e9));
    const auto mib = parse_command_line(kWriteBw, {"--rate_limit=100", "--rate_units=M", "host-b"});
    REQUIRE(mib.pacing);
    CHECK(mib.pacing->rate.value == Approx(100 * 1048576.0));
    const auto pps = parse_command_line(kWriteBw, {"--rate_limit", "2000", "--rate_units", "p", "host-b"});
    CHECK(pps.pacing->rate.unit == rdmabench::RateUnit::messages_per_second);
    REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--rate_units=g"}), UsageError,
                           MessageContains("--rate_units applies with --rate_limit"));
    REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--rate_limit=5", "--rate_limit_type=HW", "host-b"}),
                           UsageError, MessageContains("the rate is paced in software here"));
  }
}

TEST_CASE("perftest spellings: its letters where the meaning matches", "[options][perftest]") {
  CHECK(parse_command_line(kWriteBw, {"-V"}).show_version);
  const auto cl = parse_command_line(kWriteBw, {"-S", "3", "-T", "106"});
  CHECK(cl.side.qp.service_level == 3);
  CHECK(cl.side.qp.traffic_class == 106);
  const auto noted = parse_command_line(kWriteBw, {"-F", "-N"});
  REQUIRE(noted.notes.size() == 2);
  CHECK_THAT(noted.notes[0], Catch::Contains("the CPU frequency check only warns here"));
}

TEST_CASE("perftest spellings: multicast's -g (with or without a count) and -M/--MGID", "[options][perftest]") {
  const BenchmarkKind send_bw{"rdma_send_bw", Operation::send, Measurement::bandwidth, 65536, 5000, 128};
  // perftest's -g today takes no value: one QP attached; the next word stays the server.
  const auto flag = parse_command_line(send_bw, {"-g", "host-b"});
  CHECK(flag.spec.multicast_receivers == 1u);
  CHECK(flag.side.server == "host-b");
  CHECK(parse_command_line(send_bw, {"--mcg", "host-b"}).spec.multicast_receivers == 1u);
  // Its older -g N (and --mcg=N): N QPs attached.
  CHECK(parse_command_line(send_bw, {"-g", "3"}).spec.multicast_receivers == 3u);
  CHECK(parse_command_line(send_bw, {"-g3"}).spec.multicast_receivers == 3u);
  CHECK(parse_command_line(send_bw, {"--mcg=4"}).spec.multicast_receivers == 4u);
  CHECK(parse_command_line(send_bw, {"--mcg", "2", "host-b"}).spec.multicast_receivers == 2u);
  const auto group = parse_command_line(send_bw, {"-g", "--MGID=255:18:64:27:0:0:0:0:0:0:0:0:0:0:0:1"});
  REQUIRE(group.side.multicast_group);
  CHECK(rdmabench::format_gid(*group.side.multicast_group) == "ff12:401b::1");
  CHECK(parse_command_line(send_bw, {"-g", "--MGID", "239.1.1.1"}).side.multicast_group.has_value());
  CHECK(parse_command_line(send_bw, {"-g", "-M", "239.1.1.1"}).side.multicast_group.has_value());
  REQUIRE_THROWS_MATCHES(parse_command_line(send_bw, {"-g", "--connectionless"}), UsageError,
                         MessageContains("--connectionless is perftest's option, and has no counterpart here: a "
                                         "server here serves one client at a time"));
}

TEST_CASE("perftest spellings: what we lack is refused, naming what to use instead", "[options][perftest]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteLat, {"-H"}), UsageError,
                         MessageContains("-H (--report-histogram) is perftest's option, and has no counterpart "
                                         "here: --dump-samples FILE writes every latency sample"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--use_neuron=0"}), UsageError,
                         MessageContains("--use_neuron is perftest's option, and has no counterpart here: "
                                         "--mem host, cuda[:N] or rocm[:N]"));
}

TEST_CASE("perftest spellings: a slip of ours is answered with the nearest option", "[options][perftest]") {
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--repot-gbits"}), UsageError,
                         MessageContains("(did you mean --report-gbits?)"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--report_gbit"}), UsageError,
                         MessageContains("(did you mean --report-gbits?)"));
  CHECK(rdmabench::cli::nearest_option("--frobnicate", {"report-gbits", "iters"}).empty());
}

TEST_CASE("options: --report-gbits is a bandwidth option, refused by a latency binary", "[options]") {
  CHECK(parse_command_line(kWriteBw, {"--report-gbits"}).report_gbits);
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteLat, {"--report-gbits"}), UsageError,
                         MessageContains("--report-gbits applies to the bandwidth tests; rdma_write_lat reports "
                                         "latency in usec"));
  CHECK(parse_command_line(kWriteLat, {"--help"}).help_text.find("--report-gbits") == std::string::npos);
}

TEST_CASE("options: --run-infinitely runs one size in periods of --report-every, or perftest's -D",
          "[options][soak]") {
  const auto soak = parse_command_line(kWriteBw, {"--run-infinitely"});
  CHECK(soak.spec.run_infinitely);
  CHECK(soak.spec.duration_s == 10);
  CHECK(parse_command_line(kWriteBw, {"--run-infinitely", "--report-every", "3"}).spec.duration_s == 3);
  CHECK(parse_command_line(kWriteBw, {"--run_infinitely", "-D", "5"}).spec.duration_s == 5);
  CHECK(parse_command_line(kWriteLat, {"--run-infinitely", "--load-qps", "2", "10.0.0.1"}).spec.run_infinitely);
  CHECK_FALSE(parse_command_line(kWriteBw, {}).spec.run_infinitely);
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--run-infinitely", "-a"}), UsageError,
                         MessageContains("--run-infinitely runs one message size; give -s SIZE"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--run-infinitely", "-n", "100"}), UsageError,
                         MessageContains("--run-infinitely and -n/--iters conflict"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--run-infinitely", "--report-every", "3", "-D", "5"}),
                         UsageError, MessageContains("--report-every 3 and -D/--duration 5 both give"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--report-every", "3"}), UsageError,
                         MessageContains("--report-every applies with --run-infinitely"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--run-infinitely", "--report-every", "0"}), UsageError,
                         MessageContains("--report-every 0 is out of range: expected 1 to 86400 seconds"));
}

TEST_CASE("options: --interval is a bandwidth option, 0 or 10 ms to 10 minutes", "[options]") {
  CHECK(parse_command_line(kWriteBw, {}).interval == std::chrono::milliseconds(100));
  CHECK(parse_command_line(kWriteBw, {"--interval", "250"}).interval == std::chrono::milliseconds(250));
  CHECK(parse_command_line(kWriteBw, {"--interval", "0"}).interval == std::chrono::milliseconds(0));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--interval", "5"}), UsageError,
                         MessageContains("--interval 5 is out of range: expected 10 to 600000 ms (or 0: none)"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteLat, {"--interval", "100"}), UsageError,
                         MessageContains("--interval applies to the bandwidth tests; rdma_write_lat keeps "
                                         "every latency sample instead"));
  CHECK(parse_command_line(kWriteLat, {"--help"}).help_text.find("--interval") == std::string::npos);
}

TEST_CASE("options: each binary's help lists only what it takes, and refuses the rest by name", "[options]") {
  const auto lat_help = parse_command_line(kWriteLat, {"--help"}).help_text;
  const auto bw_help = parse_command_line(kWriteBw, {"--help"}).help_text;
  for (const char* bandwidth_only : {"--cq-mod", "[ --qp ]", "--post-list", "--bidirectional"}) {
    INFO(bandwidth_only);
    CHECK(lat_help.find(bandwidth_only) == std::string::npos);
    CHECK(bw_help.find(bandwidth_only) != std::string::npos);
  }
  for (const char* latency_only : {"--load-qps", "--load-size", "--load-op"}) {
    INFO(latency_only);
    CHECK(bw_help.find(latency_only) == std::string::npos);
    CHECK(lat_help.find(latency_only) != std::string::npos);
  }
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteLat, {"-Q", "4"}), UsageError,
                         MessageContains("-Q/--cq-mod applies to bandwidth tests; rdma_write_lat signals every message"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kWriteBw, {"--load-size", "4K"}), UsageError,
                         MessageContains("--load-size applies to latency tests (rdma_*_lat)"));
}
