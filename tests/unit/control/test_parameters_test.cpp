// The table of test parameters: one definition drives the wire, the
// conflict check, the server's adoption, the range rules and the options.

#include "catch2_compat.hpp"
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/control/wire.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

namespace {

/// A spec in which every value differs from TestSpec{}'s, so that a row
/// taken from the wrong side shows.
TestSpec unusual_spec() {
  TestSpec s;
  s.operation = Operation::send;
  s.measurement = Measurement::bandwidth;
  s.connect = ConnectMethod::rdma_cm;
  s.iterations = 777;
  s.warmup = 9;
  s.tx_depth = 64;
  s.rx_depth = 300;
  s.use_srq = true;
  s.post_list = 4;
  s.cq_mod = 16;
  s.cpu_util = true;
  s.validate = true;
  s.atomic = AtomicOp::compare_and_swap;
  s.queue_pairs = 3;
  s.multicast_receivers = 2;
  s.duration_s = 5;
  s.bidirectional = true;
  s.sizes = {4096, 8192};
  s.qp_type = QpType::uc;
  s.write_with_imm = true;
  s.warmup_each_size = false;
  s.passive_wait = PassiveWait::sleep;
  s.open_loop = true;
  s.repeats = 3;
  return s;
}

}  // namespace

TEST_CASE("parameters: the server adopts every adopted row from the client and keeps the rest",
          "[parameters]") {
  const TestSpec server;
  const TestSpec client = unusual_spec();
  const TestSpec adopted = adopt_client_choice(server, client);
  int adopted_rows = 0;
  for_each_test_parameter([&](const auto& row) {
    INFO(row.key);
    if (row.agreement == Agreement::adopt) {
      CHECK(adopted.*row.member == client.*row.member);
      ++adopted_rows;
    } else {
      CHECK(adopted.*row.member == server.*row.member);
    }
  });
  CHECK(adopted_rows > 0);
}

TEST_CASE("parameters: every must-match row is named when the two sides differ", "[parameters]") {
  for_each_test_parameter([&](const auto& row) {
    if (row.agreement != Agreement::must_match) return;
    INFO(row.key);
    TestSpec server;
    server.operation = Operation::write;
    TestSpec client = server;
    client.*row.member = unusual_spec().*row.member;
    const auto conflict = find_conflict(server, client);
    REQUIRE(conflict.has_value());
    CHECK_THAT(*conflict, Catch::StartsWith(fmt::format("mismatched {}: ", row.option)));
  });
}

TEST_CASE("parameters: a multicast mismatch says how many receivers each side gives", "[parameters][multicast]") {
  TestSpec server;
  server.operation = Operation::send;
  server.multicast_receivers = 2;
  server.qp_type = QpType::ud;
  TestSpec client = server;
  client.multicast_receivers = 0;
  client.qp_type = QpType::rc;
  // Named before -c, which -g implies.
  const auto conflict = find_conflict(server, client);
  REQUIRE(conflict);
  CHECK(*conflict == "mismatched -g/--mcg: the server attaches 2 receiving queue pairs to a multicast group, "
                     "the client asks for 0 (0: no multicast); give the same -g on both sides");
}

TEST_CASE("parameters: hostile values are out of range, naming the option, value and range",
          "[parameters]") {
  struct Case {
    void (*spoil)(TestSpec&);
    std::string expected;
  };
  for (const auto& c : std::vector<Case>{
           {[](TestSpec& s) { s.iterations = 0; }, "-n/--iters 0 is out of range: expected 1 to 1000000000"},
           {[](TestSpec& s) { s.iterations = 1'000'000'000'000; }, "-n/--iters 1000000000000 is out of range"},
           {[](TestSpec& s) { s.iterations = std::numeric_limits<std::uint64_t>::max(); },
            "-n/--iters 18446744073709551615 is out of range"},
           {[](TestSpec& s) { s.warmup = std::numeric_limits<std::uint32_t>::max(); },
            "--warmup 4294967295 is out of range: expected 0 to 1000000000"},
           {[](TestSpec& s) { s.tx_depth = 0; }, "-t/--tx-depth 0 is out of range: expected 1 to 65536"},
           {[](TestSpec& s) { s.tx_depth = 1u << 20; }, "-t/--tx-depth 1048576 is out of range"},
           {[](TestSpec& s) { s.rx_depth = 1u << 20; }, "-r/--rx-depth 1048576 is out of range"},
           {[](TestSpec& s) { s.sizes = {0}; }, "-s/--size 0 is out of range: expected 1 to 4294967295"},
           {[](TestSpec& s) { s.sizes = {std::uint64_t{1} << 40}; }, "-s/--size 1099511627776 is out of range"},
           {[](TestSpec& s) { s.sizes = {}; }, "0 message sizes in one run: expected 1 to 64"},
           {[](TestSpec& s) { s.duration_s = 1'000'000'000; },
            "-D/--duration 1000000000 is out of range: expected 1 to 86400 seconds"},
           {[](TestSpec& s) { s.queue_pairs = 0; }, "-q/--qp 0 is out of range: expected 1 to 1024"},
           {[](TestSpec& s) { s.multicast_receivers = 1000; },
            "-g/--mcg 1000 is out of range: expected 1 to 256 receiving queue pairs"},
           {[](TestSpec& s) { s.post_list = 200; }, "-l/--post-list 200 exceeds -t/--tx-depth 128"},
           {[](TestSpec& s) { s.cq_mod = 129; }, "-Q/--cq-mod 129 exceeds -t/--tx-depth 128"},
           {[](TestSpec& s) { s.repeats = 0; }, "--repeat 0 is out of range: expected 1 to 1000 repeats"},
           {[](TestSpec& s) { s.repeats = 1001; }, "--repeat 1001 is out of range: expected 1 to 1000"},
           {[](TestSpec& s) { s.run_infinitely = true; s.repeats = 2; },
            "--repeat 2 and --run-infinitely conflict: a soak already measures"},
       }) {
    TestSpec s;
    c.spoil(s);
    const auto problem = find_out_of_range(s);
    REQUIRE(problem.has_value());
    CHECK_THAT(*problem, Catch::StartsWith(c.expected));
  }
  CHECK_FALSE(find_out_of_range(TestSpec{}).has_value());
  TestSpec defaults_by_zero;  // 0 asks the library for its default where a row allows it
  defaults_by_zero.rx_depth = 0;
  defaults_by_zero.cq_mod = 0;
  defaults_by_zero.duration_s = 0;
  CHECK_FALSE(find_out_of_range(defaults_by_zero).has_value());
}

TEST_CASE("parameters: a hello out of range is refused when decoded, naming the option",
          "[parameters]") {
  TestSpec s;
  s.iterations = 0;
  REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(wire::Hello{s})), Error,
                         MessageContains("hello message: -n/--iters 0 is out of range"));
  s = TestSpec{};
  s.sizes = {std::uint64_t{1} << 40};
  REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(wire::Hello{s})), Error,
                         MessageContains("-s/--size 1099511627776 is out of range"));
  const TestSpec fine = unusual_spec();
  CHECK(std::get<wire::Hello>(wire::decode(wire::encode(wire::Hello{fine}))).spec == fine);
}

TEST_CASE("parameters: the command line applies the same bounds as the table", "[parameters]") {
  const cli::BenchmarkKind kind{"rdma_write_bw", Operation::write, Measurement::bandwidth, 65536, 5000, 128};
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kind, {"-s", "1024G"}), cli::UsageError,
                         MessageContains("-s/--size 1099511627776 is out of range: expected 1 to 4294967295"));
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kind, {"-D", "100000"}), cli::UsageError,
                         MessageContains("-D/--duration 100000 is out of range: expected 1 to 86400 seconds"));
  // Every row with an option group that applies to this binary shows up in
  // --help under its spelling; the others do not, and are refused by name.
  const auto help = cli::parse_command_line(kind, {"--help"}).help_text;
  int hidden = 0;
  for_each_test_parameter([&](const auto& row) {
    if (row.group == OptionGroup::none) return;
    INFO(row.key);
    const std::string long_form = std::string(row.option).substr(std::string(row.option).rfind("--"));
    if (row.applies.covers(kind.operation, kind.measurement)) {
      CHECK_THAT(help, Catch::Contains(long_form + " "));
      return;
    }
    ++hidden;
    CHECK_THAT(help, !Catch::Contains(long_form + " "));
    using T = typename std::decay_t<decltype(row)>::Value;
    std::vector<std::string> args{long_form};
    if constexpr (TestEnum<T>) args.push_back(EnumNames<T>::names[0]);
    else if constexpr (!std::is_same_v<T, bool>) args.push_back("1");
    REQUIRE_THROWS_MATCHES(cli::parse_command_line(kind, args), cli::UsageError,
                           MessageContains(std::string(row.option) + " applies to " + row.applies.tests));
  });
  CHECK(hidden >= 3);  // -A, -r and --passive-wait do not apply to rdma_write_bw
}

TEST_CASE("parameters: -u/--qp-timeout, added by one row, is parsed, bounded and carried", "[parameters]") {
  const cli::BenchmarkKind kind{"rdma_write_lat", Operation::write, Measurement::latency, 2, 1000, 1};
  CHECK(cli::parse_command_line(kind, {}).spec.qp_timeout == 14);
  CHECK(cli::parse_command_line(kind, {"-u", "20"}).spec.qp_timeout == 20);
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kind, {"-u", "0"}), cli::UsageError,
                         MessageContains("-u/--qp-timeout 0 is out of range: expected 1 to 31"));
  TestSpec s;
  s.qp_timeout = 32;
  REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(wire::Hello{s})), Error,
                         MessageContains("-u/--qp-timeout 32 is out of range"));
  s.qp_timeout = 9;
  CHECK(adopt_client_choice(TestSpec{}, s).qp_timeout == 9);
}

TEST_CASE("parameters: open_loop has no option of its own: the hello carries the client's to the server",
          "[parameters]") {
  const cli::BenchmarkKind kind{"rdma_send_lat", Operation::send, Measurement::latency, 2, 1000, 1};
  const TestSpec client = cli::parse_command_line(kind, {"server", "--rate", "1000"}).spec;
  REQUIRE(client.open_loop);
  const auto hello = wire::decode(wire::encode(wire::Hello{client}));
  const TestSpec server = cli::parse_command_line(kind, {}).spec;
  CHECK_FALSE(server.open_loop);
  CHECK_FALSE(find_conflict(server, client));
  CHECK(adopt_client_choice(server, std::get<wire::Hello>(hello).spec).open_loop);
  REQUIRE_THROWS_MATCHES(cli::parse_command_line(kind, {"--open-loop"}), cli::UsageError,
                         MessageContains("unrecognised option '--open-loop'"));
}
