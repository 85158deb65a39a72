// Silent degraders (issue 30, item 5): the watched counters' limits
// (lib/sweep/counter_limits.cpp), a pair within its limits whose counters
// moved past theirs judged as one (silent_degraders.cpp), and the report
// naming the counter, the end and the value (report_counters.cpp).

#include "catch2_compat.hpp"
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rdmabench/sweep/counter_limits.hpp"
#include "rdmabench/sweep/report.hpp"
#include "rdmabench/sweep/verdict.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using namespace rdmabench::sweep;
using rdmabench::test::MessageContains;
namespace fs = std::filesystem;

namespace {

/// rxe's counters over a 4-second write_bw on an unloaded lab link: 309,000
/// packets with completer_retry_err +53 and duplicate_request +1799, which
/// a healthy soft-RoCE link shows, plus `out_of_seq` sequence errors.
CounterDeltas rxe_counters_end(std::uint64_t out_of_seq = 0) {
  CounterDeltas d;
  d.source = "rxe0 port 1 hw_counters";
  d.counters_read = 14;
  d.moved = {{"sent_pkts", 154'000}, {"rcvd_pkts", 155'000}, {"completer_retry_err", 53}, {"duplicate_request", 1799}};
  if (out_of_seq) d.moved["out_of_seq_request"] = out_of_seq;
  return d;
}

std::vector<Endpoint> degrader_hosts() {
  return {{0, "host-a", "rxe0", 0}, {1, "host-b", "rxe0", 0}, {2, "host-c", "rxe0", 0}, {3, "host-d", "rxe0", 0}};
}

/// Every ordered pair of four hosts in write_bw at about 9.5 Gb/s, each end
/// with its counters; the server end of `lossy` (when it is a pair) saw 600
/// sequence errors, about 1,940 per million packets.
std::vector<SweepRecord> degrader_sweep(const DirectedPair& lossy, double lossy_gbps = 9.4) {
  std::vector<SweepRecord> records;
  const auto endpoints = degrader_hosts();
  for (EndpointIndex c = 0; c < 4; ++c)
    for (EndpointIndex s = 0; s < 4; ++s) {
      if (c == s) continue;
      SweepRecord r;
      r.test = "write_bw";
      r.client.endpoint = endpoints[c];
      r.server.endpoint = endpoints[s];
      const bool is_lossy = DirectedPair{c, s} == lossy;
      r.figures.bw_average_Gbps = is_lossy ? lossy_gbps : 9.5 + 0.01 * static_cast<double>(c);
      r.counters.client = rxe_counters_end();
      r.counters.server = rxe_counters_end(is_lossy ? 600 : 0);
      records.push_back(r);
    }
  return records;
}

ReportOptions degrader_options() {
  ReportOptions o;
  o.tests_in_order = {"write_bw"};
  o.bandwidth.min_share_of_median = 0.5;
  return o;
}

struct DegraderDir {
  fs::path path = fs::temp_directory_path() / ("rdmabench-degrader-" + std::to_string(::getpid()));
  DegraderDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~DegraderDir() { fs::remove_all(path); }
};

std::string whole_file(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("max-counter items: a count, a rate per million packets, or off", "[sweep]") {
  const auto count = parse_counter_limit("link_downed=0");
  REQUIRE(count.limit);
  CHECK(count.counter == "link_downed");
  CHECK(count.limit->limit == 0);
  CHECK_FALSE(count.limit->per_million_packets);
  const auto rate = parse_counter_limit("rcvd_seq_err=250.5ppm");
  REQUIRE(rate.limit);
  CHECK(rate.limit->limit == 250.5);
  CHECK(rate.limit->per_million_packets);
  CHECK(limit_text(*rate.limit) == "rcvd_seq_err=250.5ppm");
  CHECK_FALSE(parse_counter_limit("duplicate_request=off").limit);
}

TEST_CASE("max-counter items that are wrong say what is wrong and what would be right", "[sweep]") {
  CHECK_THROWS_MATCHES(parse_counter_limit("rcvd_seq_err"), Error,
                       MessageContains("has no '='") && MessageContains("NAME=Nppm"));
  CHECK_THROWS_MATCHES(parse_counter_limit("rcvd_seq_err=lots"), Error, MessageContains("'lots' for rcvd_seq_err"));
  CHECK_THROWS_MATCHES(parse_counter_limit("rcvd_seq_err=-1"), Error, MessageContains("0 or more"));
  CHECK_THROWS_MATCHES(parse_counter_limit("rcvd_seq_err=ppm"), Error, MessageContains("not a limit"));
  CHECK_THROWS_MATCHES(parse_counter_limit("=5"), Error, MessageContains("no counter name"));
  CHECK_THROWS_MATCHES(parse_counter_limit("../x=5"), Error, MessageContains("no counter name"));
}

TEST_CASE("the defaults watch sequence errors, retransmission, CNPs and discards, not host-wide TCP", "[sweep]") {
  const auto defaults = default_counter_limits();
  const auto has = [&](const std::string& name) {
    return std::any_of(defaults.begin(), defaults.end(), [&](const CounterLimit& l) { return l.counter == name; });
  };
  for (const char* name : {"rcvd_seq_err", "out_of_seq_request", "completer_retry_err", "out_of_sequence",
                           "packet_seq_err", "np_cnp_sent", "port_xmit_discards", "link_downed"})
    CHECK(has(name));
  CHECK_FALSE(has("tcp_RetransSegs"));   // the whole host's: every other connection moves it
  CHECK_FALSE(has("duplicate_request"));  // moves on a healthy rxe link
  const CounterLimitSetting settings[] = {{"duplicate_request", CounterLimit{"duplicate_request", 9000, true}},
                                          {"link_downed", std::nullopt}};
  const auto changed = with_settings(defaults, settings);
  CHECK(std::any_of(changed.begin(), changed.end(), [](const CounterLimit& l) { return l.counter == "duplicate_request"; }));
  CHECK(std::none_of(changed.begin(), changed.end(), [](const CounterLimit& l) { return l.counter == "link_downed"; }));
  CHECK(changed.size() == defaults.size());
}

TEST_CASE("an unloaded rxe link's retries pass the default rates, sequence errors past them do not", "[sweep]") {
  SweepRecord r;
  r.client.endpoint = {0, "host-a", "rxe0", 0};
  r.server.endpoint = {1, "host-b", "rxe0", 0};
  r.counters.client = rxe_counters_end();
  r.counters.server = rxe_counters_end(20);  // 65 per million: below 100
  const auto limits = default_counter_limits();
  CHECK(counter_excesses(r, limits).empty());
  REQUIRE(packets_through(*r.counters.server) == 309'000u);
  r.counters.server = rxe_counters_end(600);
  const auto past = counter_excesses(r, limits);
  REQUIRE(past.size() == 1);
  CHECK(past[0].counter == "out_of_seq_request");
  CHECK(past[0].at_server);
  CHECK(past[0].delta == 600);
  CHECK(past[0].per_million.value() == Approx(1941.7).margin(0.1));
  CHECK(excesses_text(r, past) == "out_of_seq_request +600 at the server end (rank 1 host-b rxe0): 1942 per million "
                                  "packets, limit 100 per million");
  // An end that counted no packets is held to the count itself.
  r.counters.server->moved.erase("sent_pkts");
  r.counters.server->moved.erase("rcvd_pkts");
  CHECK_THAT(excesses_text(r, counter_excesses(r, limits)), Catch::Contains("+600 at the server end") &&
                                                              Catch::Contains("held against the count"));
}

TEST_CASE("a pair within its limits with a counter past its limit is a silent degrader", "[sweep]") {
  const auto endpoints = degrader_hosts();
  PairMatrix m(4);
  for (EndpointIndex c = 0; c < 4; ++c)
    for (EndpointIndex s = 0; s < 4; ++s)
      if (c != s) m.record(c, s, c == 2 && s == 3 ? 2.0 : 9.5);
  Thresholds t;
  t.min_share_of_median = 0.5;
  const Figure bandwidth{"bandwidth", "Gb/s", Better::higher};
  SECTION("below its limit: a pass") {
    const Verdict v = judge(m, endpoints, bandwidth, t, {});
    REQUIRE(v.suspects.size() == 1);  // 2->3, the slow one
    CHECK(v.suspects[0].kind == SuspectKind::link);
    CHECK(v.pairs_failing == 1);
  }
  SECTION("past its limit") {
    const DegradedPair degraded[] = {{{0, 1}, "out_of_seq_request +600 at the server end"},
                                     {{2, 3}, "rcvd_seq_err +9 at the client end"}};
    const Verdict v = judge(m, endpoints, bandwidth, t, degraded);
    CHECK(v.pairs_failing == 2);
    REQUIRE(v.suspects.size() == 2);
    // 2->3 fails its bandwidth: it stays a link suspect, not a degrader.
    CHECK(v.suspects[0].kind == SuspectKind::link);
    CHECK(v.suspects[1].kind == SuspectKind::silent_degrader);
    CHECK(v.suspects[1].endpoints == std::vector<EndpointIndex>{0, 1});
    REQUIRE(v.suspects[1].evidence.size() == 1);
    CHECK(v.suspects[1].evidence[0].silent_degrader);
    CHECK(kind_name(v.suspects[1].kind) == "silent-degrader");
    CHECK_THAT(v.suspects[1].sentence, Catch::Contains("rank 0->rank 1 at 9.50 Gb/s has out_of_seq_request +600"));
    // The re-test measures the pair again, and its ends with others.
    CHECK(std::find(v.retest.begin(), v.retest.end(), DirectedPair{0, 1}) != v.retest.end());
  }
}

TEST_CASE("the report names a silent degrader's counter, end and value, with a heatmap per moved counter",
          "[sweep]") {
  DegraderDir dir;
  const auto endpoints = degrader_hosts();
  const ReportSummary summary = write_report(dir.path, degrader_sweep({0, 1}), endpoints, degrader_options());
  CHECK(summary.failed());
  CHECK(summary.failing_pairs == 1);
  CHECK(summary.suspects == 1);
  const std::string failures = whole_file(dir.path / "failures.txt");
  CHECK_THAT(failures, Catch::Contains("FAIL write_bw rank 0 -> rank 1: silent degrader: out_of_seq_request +600 at "
                                       "the server end (rank 1 host-b rxe0): 1942 per million packets, limit 100 "
                                       "per million"));
  CHECK_THAT(failures, Catch::Contains("SUSPECT silent-degrader rank 0 (host-a rxe0, rail 0) - rank 1 (host-b rxe0, rail 0)"));
  CHECK(count_of(failures, "FAIL ") == 1);
  const std::string md = whole_file(dir.path / "report.md");
  CHECK_THAT(md, Catch::Contains("### Counters past their limits") &&
                     Catch::Contains("- rank 0 -> rank 1 (silent degrader): out_of_seq_request +600 at the server end"));
  CHECK_THAT(md, Catch::Contains("**silent-degrader**"));
  const std::string html = whole_file(dir.path / "report.html");
  // completer_retry_err (watched) and out_of_seq_request moved; duplicate_request
  // and the packet counts moved too but are not watched; rcvd_seq_err never moved.
  CHECK(count_of(html, "class=\"counter-heatmap\"") == 2);
  CHECK(count_of(html, "id=\"write_bw-counter_out_of_seq_request\"") == 1);
  CHECK(count_of(html, "id=\"write_bw-counter_completer_retry_err\"") == 1);
  CHECK(html.find("counter_rcvd_seq_err") == std::string::npos);
  CHECK(html.find("counter_duplicate_request") == std::string::npos);
  CHECK(html.find("counter_sent_pkts") == std::string::npos);
  CHECK(fs::exists(dir.path / "write_bw-counter_out_of_seq_request.csv"));
  CHECK_FALSE(fs::exists(dir.path / "write_bw-counter_rcvd_seq_err.csv"));
}

TEST_CASE("a pair that fails its bandwidth stays a bandwidth failure, its counters named beside", "[sweep]") {
  DegraderDir dir;
  const ReportSummary summary = write_report(dir.path, degrader_sweep({0, 1}, 2.0), degrader_hosts(), degrader_options());
  const std::string failures = whole_file(dir.path / "failures.txt");
  CHECK_THAT(failures, Catch::Contains("FAIL write_bw rank 0 -> rank 1: 2.00 Gb/s below 0.5 x median") &&
                           Catch::Contains("; counters past their limits: out_of_seq_request +600 at the server end"));
  CHECK(failures.find("silent-degrader") == std::string::npos);
  CHECK_THAT(whole_file(dir.path / "report.md"), Catch::Contains("- rank 0 -> rank 1 (fails its limits too): "));
  CHECK(summary.failing_pairs == 1);
}

TEST_CASE("a quiet sweep has no counters past their limits and passes", "[sweep]") {
  DegraderDir dir;
  const ReportSummary summary = write_report(dir.path, degrader_sweep({9, 9}), degrader_hosts(), degrader_options());
  CHECK_FALSE(summary.failed());
  CHECK_THAT(whole_file(dir.path / "report.md"), Catch::Contains("None: no watched counter moved past its limit."));
  // completer_retry_err moved within its rate: still drawn, for a person to see.
  CHECK(count_of(whole_file(dir.path / "report.html"), "class=\"counter-heatmap\"") == 1);
}

TEST_CASE("a silent degrader's re-test: its pair past the limits again confirms, quiet clears", "[sweep]") {
  DegraderDir dir;
  auto records = degrader_sweep({0, 1});
  SweepRecord again = records.front();  // 0 -> 1
  again.pass = SweepPass::retest;
  SECTION("the counters move again") {
    records.push_back(again);
    const ReportSummary summary = write_report(dir.path, records, degrader_hosts(), degrader_options());
    CHECK(summary.suspects == 1);
    CHECK_THAT(whole_file(dir.path / "failures.txt"), Catch::Contains("[re-test: confirmed, the pair rank 0-rank 1 fails again]"));
  }
  SECTION("the counters stay quiet") {
    again.counters.server = rxe_counters_end();
    records.push_back(again);
    const ReportSummary summary = write_report(dir.path, records, degrader_hosts(), degrader_options());
    CHECK_FALSE(summary.failed());
    CHECK(summary.not_reproduced == 2);  // the pair and its suspect
  }
}
