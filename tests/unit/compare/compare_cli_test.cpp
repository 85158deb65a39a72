// rdma_compare's options (bench/cli/compare_options.cpp) and its exit
// status (bench/cli/compare_run.cpp): 0 when nothing regressed, 1 when
// anything did, 2 for a usage or input error, each error a clear line.

#include "catch2_compat.hpp"

#include <fstream>
#include <sstream>

#include "cli/compare_run.hpp"
#include "cli/options.hpp"
#include "compare_fixtures.hpp"
#include "test_helpers.hpp"

// In a namespace of its own, with the names it uses declared in it: the
// unity build puts other files' `using namespace rdmabench` (its Measurement)
// and `rdmabench::sweep` (its Better, Verdict, Thresholds) before these.
namespace compare_cli_cases {

using namespace rdmabench::cli;
using namespace compare_test;
using rdmabench::test::MessageContains;

namespace {

struct CompareRun {
  int status = 0;
  std::string out, err;
};

CompareRun run_with(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const CompareCommandLine cl = parse_compare_command_line(args);
  const int status = run_compare(cl, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace

TEST_CASE("rdma_compare options: two sides, thresholds, format, bootstrap", "[compare][cli]") {
  const auto cl = parse_compare_command_line({"a.json,b.json", "dir", "--threshold", "bw=5%", "--threshold", "p99=20%",
                                              "--format", "json", "--out", "r.json", "--seed", "3", "--resamples",
                                              "500", "--confidence", "0.9", "--ignore-endpoints"});
  CHECK(cl.old_paths == std::vector<std::string>{"a.json", "b.json"});
  CHECK(cl.new_paths == std::vector<std::string>{"dir"});
  CHECK(cl.format == CompareFormat::json);
  CHECK(cl.out == "r.json");
  CHECK(cl.options.bootstrap.seed == 3);
  CHECK(cl.options.bootstrap.resamples == 500);
  CHECK(cl.options.bootstrap.confidence == Approx(0.9));
  CHECK(cl.read.ignore_endpoints);
  CHECK(cl.options.thresholds.settings_text() == std::vector<std::string>{"bw=5%", "p99=20%"});
  const auto help = parse_compare_command_line({"--help"});
  CHECK(help.show_help);
  CHECK_THAT(help.help_text, Catch::Contains("Exit status: 0 nothing regressed, 1 something regressed, 2"));
  CHECK_THAT(help.help_text, Catch::Contains("bw           3%"));
  REQUIRE_THROWS_MATCHES(parse_compare_command_line({"a.json"}), UsageError, MessageContains("expected two sides"));
  REQUIRE_THROWS_MATCHES(parse_compare_command_line({"a", "b", "c"}), UsageError, MessageContains("comma-separated"));
  REQUIRE_THROWS_MATCHES(parse_compare_command_line({"a", "b", "--format", "pdf"}), UsageError,
                         MessageContains("expected markdown, json or html"));
  REQUIRE_THROWS_MATCHES(parse_compare_command_line({"a", "b", "--threshold", "bw=3"}), UsageError,
                         MessageContains("no percentage"));
  REQUIRE_THROWS_MATCHES(parse_compare_command_line({"a", "b", "--confidence", "1"}), UsageError,
                         MessageContains("out of range"));
}

TEST_CASE("rdma_compare exit status: 0 same, 1 regressed, 2 input errors", "[compare][cli]") {
  CompareScratch dir("cli");
  RecordSpec s;
  const auto base = dir.write("base.json", bw_repeats(s, {100, 101, 99, 100.5, 99.5}, 1));
  const auto again = dir.write("again.json", bw_repeats(s, {100.2, 99.8, 100.4, 99.6, 100}, 11));
  const auto slower = dir.write("slower.json", bw_repeats(s, {80, 81, 79, 80.5, 79.5}, 21));
  const auto faster = dir.write("faster.json", bw_repeats(s, {120, 121, 119, 120.5, 119.5}, 31));

  const CompareRun same = run_with({base, again});
  CHECK(same.status == kCompareSame);
  CHECK_THAT(same.out, Catch::StartsWith("# rdma_compare: 0 regressed, "));
  CHECK(same.err.empty());

  const CompareRun regressed = run_with({base, slower});
  CHECK(regressed.status == kCompareRegressed);
  CHECK_THAT(regressed.out, Catch::Contains("| **regressed** | bandwidth (MB/s)"));

  const CompareRun improved = run_with({base, faster});
  CHECK(improved.status == kCompareSame);
  CHECK_THAT(improved.out, Catch::Contains("| **improved** | bandwidth (MB/s)"));

  // The report to a file: the console still gets the verdicts.
  const auto html = (dir.path / "report.html").string();
  const CompareRun to_file = run_with({base, slower, "--format", "html", "--out", html});
  CHECK(to_file.status == kCompareRegressed);
  // Bandwidth, message rate and peak fell alike.
  CHECK_THAT(to_file.err, Catch::Contains("rdma_compare: 3 regressed, 0 same, 0 improved"));
  CHECK_THAT(to_file.err, Catch::Contains("report in " + html));
  // Not overwritten unless asked.
  const CompareRun refused = run_with({base, slower, "--format", "html", "--out", html});
  CHECK(refused.status == kCompareError);
  CHECK_THAT(refused.err, Catch::Contains("give --force to overwrite it"));
  CHECK(run_with({base, slower, "--format", "html", "--out", html, "--force"}).status == kCompareRegressed);

  const CompareRun missing = run_with({base, (dir.path / "absent.json").string()});
  CHECK(missing.status == kCompareError);
  CHECK_THAT(missing.err, Catch::StartsWith("rdma_compare: error: '"));
  CHECK_THAT(missing.err, Catch::Contains("absent.json' does not exist"));

  RecordSpec other;
  other.test = "read_bw";
  const CompareRun unmatched = run_with({base, dir.write("other.json", bw_repeats(other, {1, 2}, 41))});
  CHECK(unmatched.status == kCompareError);
  CHECK_THAT(unmatched.err, Catch::Contains("no test of OLD matches one of NEW"));
  CHECK_THAT(unmatched.err, Catch::Contains("NEW holds no write_bw record"));
}

}  // namespace compare_cli_cases
