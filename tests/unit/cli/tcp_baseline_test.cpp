// tcp_baseline's parts: its options (the pair binaries' spellings, ranges and
// messages), the checks on what a peer sends (session header, summary), and
// the per-interval figures of a stream test.

#include "catch2_compat.hpp"
#include <sys/socket.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "tcp_baseline/session_protocol.hpp"
#include "tcp_baseline/stream_intervals.hpp"
#include "tcp_baseline/tcp_measurement.hpp"
#include "tcp_baseline/tcp_options.hpp"
#include "test_helpers.hpp"

using rdmabench::Error;
using rdmabench::Milliseconds;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;
using rdmabench::tcp::decode_header;
using rdmabench::tcp::encode_header;
using rdmabench::tcp::Header;
using rdmabench::tcp::HeaderBytes;
using rdmabench::tcp::interval_figures;
using rdmabench::tcp::IntervalFigures;
using rdmabench::tcp::kMaxBytesInFlight;
using rdmabench::tcp::kMaxRoundTrips;
using rdmabench::tcp::Options;
using rdmabench::tcp::parse_tcp_command_line;
using rdmabench::tcp::receive_summary;
using rdmabench::tcp::send_summary;
using rdmabench::tcp::Summary;
using rdmabench::tcp::Test;
using Args = std::vector<std::string>;

TEST_CASE("tcp_baseline options: defaults", "[tcp_baseline]") {
  const Options o = parse_tcp_command_line({});
  CHECK_FALSE(o.is_client());
  CHECK(o.port == 18600);
  CHECK(o.test == Test::stream);
  CHECK(o.streams == 1);
  CHECK(o.size == 65536);
  CHECK(o.iterations == 10000);
  CHECK(o.warmup == 100);
  CHECK(o.duration_s == 5);
  CHECK(o.interval_s == 0.5);
  CHECK(o.timeout == Milliseconds(10000));
  CHECK(o.json_path.empty());
  CHECK_FALSE(o.show_help);
  CHECK_FALSE(o.show_version);
}

TEST_CASE("tcp_baseline options: a client's values", "[tcp_baseline]") {
  const Options o = parse_tcp_command_line({"--test", "pingpong", "-s", "4K", "-n", "50", "--warmup", "0",
                                            "-p", "20000", "--timeout", "2.5", "--json", "-", "--dump-samples",
                                            "s.txt", "--csv", "r.csv", "10.0.0.1"});
  CHECK(o.is_client());
  CHECK(o.server == "10.0.0.1");
  CHECK(o.test == Test::pingpong);
  CHECK(o.size == 4096);
  CHECK(o.iterations == 50);
  CHECK(o.warmup == 0);
  CHECK(o.port == 20000);
  CHECK(o.timeout == Milliseconds(2500));
  CHECK(o.json_path == "-");
  CHECK(o.samples_path == "s.txt");
  CHECK(o.csv_path == "r.csv");
}

TEST_CASE("tcp_baseline options: --help and --version skip the checks", "[tcp_baseline]") {
  const Options help = parse_tcp_command_line({"--help", "--streams", "0"});
  CHECK(help.show_help);
  CHECK(help.help_text.find("Usage: tcp_baseline [options]") == 0);
  CHECK(help.help_text.find("--streams") != std::string::npos);
  CHECK(parse_tcp_command_line({"--version"}).show_version);
}

TEST_CASE("tcp_baseline options: mistakes name the option and what is allowed", "[tcp_baseline]") {
  const auto fails = [](const Args& args, const char* part) {
    REQUIRE_THROWS_MATCHES(parse_tcp_command_line(args), UsageError, MessageContains(part));
  };
  fails({"--bogus"}, "unrecognised option '--bogus'");
  fails({"-s", "12Q"}, "invalid size '12Q'");
  fails({"-s", "0"}, "-s/--size 0 is out of range: expected 1 to 1073741824");
  fails({"--streams", "0"}, "--streams 0 is out of range: expected 1 to 64");
  fails({"--streams", "65"}, "--streams 65 is out of range: expected 1 to 64");
  fails({"-p", "0"}, "-p/--port 0 is out of range: expected 1 to 65535");
  fails({"-n", "0"}, "-n/--iters 0 is out of range");
  fails({"--warmup", "-1"}, "--warmup -1 is out of range");
  fails({"--duration", "0"}, "--duration 0 is out of range: expected 0.1 to 3600");
  fails({"--duration", "2", "--interval", "3"}, "--interval 3 is out of range: expected 0.01 to 2");
  fails({"--timeout", "0"}, "--timeout 0 is out of range: expected 0.001 to 86400 seconds");
  fails({"--timeout", "nan"}, "--timeout nan is out of range");
  fails({"--test", "udp"}, "--test udp is unknown: expected stream or pingpong");
  fails({"--streams", "64", "-s", "32M"}, "give fewer streams or a smaller size");
  fails({"--dump-samples", "s.txt"}, "--dump-samples applies to --test pingpong");
  fails({"a", "b"}, "too many positional options");
}

namespace {

Header sample_header() { return {static_cast<std::uint32_t>(Test::stream), 4, 65536, 0}; }

}  // namespace

TEST_CASE("tcp_baseline header: round trip", "[tcp_baseline]") {
  const Header h = decode_header(encode_header({2, 1, 64, 10100}));
  CHECK(h.test == 2);
  CHECK(h.streams == 1);
  CHECK(h.size == 64);
  CHECK(h.round_trips == 10100);
  const HeaderBytes bytes = encode_header(sample_header());
  CHECK(bytes[0] == 0x52);  // big-endian "RBTC", then version 1
  CHECK(bytes[3] == 0x43);
  CHECK(bytes[7] == 1);
}

TEST_CASE("tcp_baseline header: what a foreign or hostile client sends is refused", "[tcp_baseline]") {
  HeaderBytes garbage{};
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<std::uint8_t>("garbage"[i % 7]);
  REQUIRE_THROWS_MATCHES(decode_header(garbage), Error, MessageContains("not a tcp_baseline of this version"));
  HeaderBytes other_version = encode_header(sample_header());
  other_version[7] = 2;
  REQUIRE_THROWS_MATCHES(decode_header(other_version), Error, MessageContains("bad session header"));
  const auto out_of_range = [](Header h) {
    REQUIRE_THROWS_MATCHES(decode_header(encode_header(h)), Error, MessageContains("session header out of range"));
  };
  out_of_range({3, 1, 64, 0});                 // no such test
  out_of_range({1, 0, 64, 0});                 // no stream
  out_of_range({1, 65, 64, 0});                // more streams than a client may ask
  out_of_range({1, 1, 0, 0});                  // empty messages
  out_of_range({1, 1, kMaxBytesInFlight + 1, 0});
  out_of_range({1, 2, kMaxBytesInFlight / 2 + 1, 0});  // too much in all
  CHECK_NOTHROW(decode_header(encode_header({1, 64, kMaxBytesInFlight / 64, 0})));
  // A ping-pong's round trips are bounded, so that their bytes cannot wrap.
  out_of_range({2, 1, 64, 0});
  out_of_range({2, 1, 64, kMaxRoundTrips + 1});
  out_of_range({2, 1, kMaxBytesInFlight, std::numeric_limits<std::uint64_t>::max()});
  CHECK_NOTHROW(decode_header(encode_header({2, 1, kMaxBytesInFlight, kMaxRoundTrips})));
}

TEST_CASE("tcp_baseline summary: checked before use", "[tcp_baseline]") {
  auto [server, client] = rdmabench::make_control_pair();
  const Milliseconds timeout(2000);
  SECTION("a server's summary arrives whole") {
    send_summary(server.fd(), 12345, rdmabench::CpuUsage{}, timeout);
    const Summary s = receive_summary(client.fd(), timeout);
    CHECK(s.bytes == 12345);
    CHECK(s.cpu.is_object());
    CHECK(s.cpu.contains("process"));
  }
  SECTION("a length beyond the limit") {
    const std::uint8_t head[16] = {0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    REQUIRE(::send(server.fd(), head, sizeof head, 0) == sizeof head);
    REQUIRE_THROWS_MATCHES(receive_summary(client.fd(), timeout), Error, MessageContains("summary too long"));
  }
  SECTION("text that is not a JSON object") {
    const std::uint8_t head[16] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7};
    REQUIRE(::send(server.fd(), head, sizeof head, 0) == sizeof head);
    REQUIRE(::send(server.fd(), "garbage", 7, 0) == 7);
    REQUIRE_THROWS_MATCHES(receive_summary(client.fd(), timeout), Error, MessageContains("not a JSON object"));
  }
  SECTION("silence is bounded by the timeout") {
    REQUIRE_THROWS_MATCHES(receive_summary(client.fd(), Milliseconds(50)), Error,
                           MessageContains("timed out after 50 ms"));
  }
  SECTION("a peer that hangs up mid-message") {
    REQUIRE(::send(server.fd(), "garbage", 7, 0) == 7);
    ::shutdown(server.fd(), SHUT_WR);
    REQUIRE_THROWS_MATCHES(receive_summary(client.fd(), timeout), Error, MessageContains("mid-message"));
  }
}

TEST_CASE("tcp_baseline intervals: rates between the sampled edges", "[tcp_baseline]") {
  const IntervalFigures f = interval_figures({{0, 0}, {0.5, 1'000'000}, {1.0, 3'000'000}, {1.25, 3'500'000}});
  REQUIRE(f.intervals.size() == 3);
  CHECK(f.intervals[0]["seconds"].get<double>() == 0.5);
  CHECK(f.intervals[0]["MBps"].get<double>() == Approx(2.0));
  CHECK(f.intervals[1]["MBps"].get<double>() == Approx(4.0));
  CHECK(f.intervals[2]["seconds"].get<double>() == 0.25);
  CHECK(f.intervals[2]["MBps"].get<double>() == Approx(2.0));
  CHECK(f.best_mb_per_s == Approx(4.0));
  CHECK(interval_figures({{0, 0}}).intervals.empty());
}

TEST_CASE("tcp_baseline's records carry a run id and their start, as the pair binaries' do",
          "[tcp]") {
  rdmabench::tcp::Options o;
  const auto first = rdmabench::tcp::tcp_context(o, "tcp_pingpong");
  const auto second = rdmabench::tcp::tcp_context(o, "tcp_stream");
  CHECK(first.run_id != 0);
  CHECK(first.run_id <= rdmabench::kMaxRunId);
  CHECK(first.run_id != second.run_id);
  CHECK_THAT(first.started_utc,
             Catch::Matches("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"));
}
