// Reading and matching (lib/compare/record_set.cpp, pair_measurement.cpp,
// sweep_measurement.cpp, matching.cpp): repeats grouped by test, size,
// side, endpoints and parameters; what found no match and why; the context
// that differs, warned of; records read twice dropped; files that cannot be
// read named.

#include "catch2_compat.hpp"

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "compare_fixtures.hpp"
#include "rdmabench/compare/comparison.hpp"
#include "rdmabench/compare/measurement.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

// In a namespace of its own, with the names it uses declared in it: the
// unity build puts other files' `using namespace rdmabench` (its Measurement)
// and `rdmabench::sweep` (its Better, Verdict, Thresholds) before these.
namespace compare_matching_cases {

using namespace rdmabench::compare;
using namespace compare_test;
using rdmabench::test::MessageContains;
using rdmabench::compare::Better;
using rdmabench::compare::Measurement;
using rdmabench::compare::Thresholds;
using rdmabench::compare::Verdict;

namespace {

RecordSet side_of(const std::vector<std::string>& paths, const ReadOptions& options = {}) {
  return read_side(paths, options);
}

const FigureComparison* row_of(const Comparison& c, const std::string& test, const std::string& figure) {
  const auto it = std::find_if(c.rows.begin(), c.rows.end(), [&](const FigureComparison& r) {
    return r.key.test == test && r.figure.key == figure;
  });
  return it == c.rows.end() ? nullptr : &*it;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("compare matching: repeats by test, size, side and endpoints, the server's port left out", "[compare]") {
  CompareScratch dir("match");
  RecordSpec bw;
  RecordSpec bw_other_port = bw;
  bw_other_port.peer = "server 10.0.2.15:51234";  // every run listens on another port
  RecordSpec lat;
  lat.test = "write_lat";
  lat.bytes = 2;
  std::vector<json> old_records = bw_repeats(bw, {100, 101, 99}, 1);
  old_records.push_back(bw_record(bw_other_port, 100.5, 4));
  for (std::uint64_t i = 0; i < 3; ++i) old_records.push_back(lat_record(lat, 10 + 0.1 * static_cast<double>(i), 20, 10 + i));
  std::vector<json> new_records = bw_repeats(bw_other_port, {80, 81, 79, 80}, 21);
  for (std::uint64_t i = 0; i < 3; ++i) new_records.push_back(lat_record(lat, 10 + 0.1 * static_cast<double>(i), 20, 30 + i));
  const auto olds = side_of({dir.write("old.json", old_records)});
  const auto news = side_of({dir.write("new.json", new_records)});
  CHECK(olds.measurements.size() == 7);
  const Comparison c = compare_sides(olds, news, {});
  CHECK(c.matched_tests == 2);
  CHECK(c.unmatched.empty());
  const FigureComparison* bw_row = row_of(c, "write_bw", "bw_average_MBps");
  REQUIRE(bw_row);
  CHECK(bw_row->old_side.values.size() == 4);
  CHECK(bw_row->new_side.values.size() == 4);
  CHECK(bw_row->change.verdict == Verdict::regressed);
  CHECK(c.rows.front().change.verdict == Verdict::regressed);  // worst first
  const FigureComparison* p99 = row_of(c, "write_lat", "lat_p99_us");
  REQUIRE(p99);
  CHECK(p99->change.verdict == Verdict::same);
  CHECK(c.regressed());
}

TEST_CASE("compare matching: a test of other parameters finds no match, and the report says what differs",
          "[compare]") {
  CompareScratch dir("params");
  RecordSpec a, b, lat;
  b.iterations = 5000;
  lat.test = "write_lat";
  lat.bytes = 2;
  auto old_records = bw_repeats(a, {100, 101}, 1);
  old_records.push_back(lat_record(lat, 10, 20, 5));
  auto new_records = bw_repeats(b, {100, 101}, 11);
  new_records.push_back(lat_record(lat, 10, 20, 15));
  const Comparison c =
      compare_sides(side_of({dir.write("old.json", old_records)}), side_of({dir.write("new.json", new_records)}), {});
  CHECK(c.matched_tests == 1);
  CHECK(any_contains(c.unmatched, "OLD: write_bw 65536 B, client at host-a, peer server 10.0.2.15 (2 records) has no "
                                  "match in NEW: the nearest differs in iterations 2000 against 5000"));
  CHECK(any_contains(c.unmatched, "NEW: write_bw"));
  // Nothing at all in common: an error that names what differs.
  REQUIRE_THROWS_MATCHES(compare_sides(side_of({dir.write("a.json", bw_repeats(a, {1}, 1))}),
                                 side_of({dir.write("b.json", bw_repeats(b, {1}, 2))}), {}),
                         rdmabench::Error, MessageContains("iterations 2000 against 5000"));
}

TEST_CASE("compare matching: other hosts match with --ignore-endpoints, and are then context", "[compare]") {
  CompareScratch dir("hosts");
  RecordSpec a, b;
  b.host = "host-b";
  b.peer = "server 10.0.3.15:40000";
  const auto old_file = dir.write("old.json", bw_repeats(a, {100, 101}, 1));
  const auto new_file = dir.write("new.json", bw_repeats(b, {100, 101}, 11));
  REQUIRE_THROWS_MATCHES(compare_sides(side_of({old_file}), side_of({new_file}), {}), rdmabench::Error,
                         MessageContains("--ignore-endpoints"));
  ReadOptions ignore;
  ignore.ignore_endpoints = true;
  const Comparison c = compare_sides(side_of({old_file}, ignore), side_of({new_file}, ignore), {});
  CHECK(c.matched_tests == 1);
  REQUIRE(c.drift.size() == 1);
  CHECK(c.drift[0].item == "endpoints");
}

TEST_CASE("compare matching: firmware, MTU and a rate cap that differ are warned of", "[compare]") {
  CompareScratch dir("drift");
  RecordSpec a, b;
  a.firmware = "16.35.1012";
  b.firmware = "16.35.2000";
  b.mtu = 4096;
  b.rate_target = 8e7;
  b.device = "rxe1";
  const Comparison c = compare_sides(side_of({dir.write("old.json", bw_repeats(a, {100, 101}, 1))}),
                               side_of({dir.write("new.json", bw_repeats(b, {80, 81}, 11))}), {});
  CHECK(c.matched_tests == 1);
  std::vector<std::string> texts;
  for (const ContextDrift& d : c.drift) texts.push_back(drift_text(d, c.matched_tests));
  INFO(texts.size() << " warnings");
  CHECK(any_contains(texts, "firmware: 16.35.1012 (old) -> 16.35.2000 (new), in the matched test"));
  CHECK(any_contains(texts, "MTU: 1024 (old) -> 4096 (new)"));
  CHECK(any_contains(texts, "rate cap: none (old) -> 80000000.0 bytes/s (new)"));
  CHECK(any_contains(texts, "device: rxe0 (old) -> rxe1 (new)"));
  CHECK(texts.size() == 4);
}

TEST_CASE("compare matching: the repeats of one --repeat run are its samples, alone or beside separate runs",
          "[compare]") {
  CompareScratch dir("repeat");
  RecordSpec s;
  // `rdma_write_bw --repeat 5 --json-file X` alone: one run id, repeat 1..5.
  const auto old_file = dir.write("old.json", bw_run_repeated(s, {100, 101, 99, 100.5, 99.5}, 1));
  const auto new_file = dir.write("new.json", bw_run_repeated(s, {80, 81, 79, 80.5, 79.5}, 2));
  const RecordSet old_side = side_of({old_file});
  CHECK(old_side.measurements.size() == 5);
  CHECK(old_side.notes.empty());  // no repeat taken for a record read twice
  const Comparison c = compare_sides(old_side, side_of({new_file}), {});
  CHECK(c.matched_tests == 1);
  CHECK(c.unmatched.empty());
  const FigureComparison* bw = row_of(c, "write_bw", "bw_average_MBps");
  REQUIRE(bw != nullptr);
  CHECK(bw->old_side.values.size() == 5);
  CHECK(bw->new_side.values.size() == 5);
  CHECK(bw->old_side.interval.has_value());  // five repeats: a noise estimate
  CHECK(bw->change.verdict == Verdict::regressed);

  // A --repeat 3 run, a --repeat 1 run and a record of before --repeat
  // (no repeat field), each its own run id: one test of five repeats,
  // whatever each run's `repeats` parameter was.
  auto mixed = bw_run_repeated(s, {100, 101, 99}, 11);
  for (const json& r : bw_run_repeated(s, {100.5}, 12)) mixed.push_back(r);
  for (const json& r : bw_repeats(s, {99.5}, 13)) mixed.push_back(r);
  const Comparison m = compare_sides(side_of({dir.write("mixed.json", mixed)}), side_of({new_file}), {});
  CHECK(m.matched_tests == 1);
  CHECK(m.unmatched.empty());
  const FigureComparison* mixed_bw = row_of(m, "write_bw", "bw_average_MBps");
  REQUIRE(mixed_bw != nullptr);
  CHECK(mixed_bw->old_side.values.size() == 5);
  CHECK(mixed_bw->change.verdict == Verdict::regressed);

  // Two runs with repeat 1..2 each: the same indices, other run ids, four repeats.
  auto two_runs = bw_run_repeated(s, {100, 101}, 21);
  for (const json& r : bw_run_repeated(s, {99, 100.5}, 22)) two_runs.push_back(r);
  CHECK(side_of({dir.write("two_runs.json", two_runs)}).measurements.size() == 4);

  // The --repeat file named twice: each repeat counts once.
  const RecordSet twice = side_of({old_file, old_file});
  CHECK(twice.measurements.size() == 5);
  CHECK(any_contains(twice.notes, "5 records left out: read twice"));
}

TEST_CASE("compare reading: a record read twice is no repeat, soak periods and failed sweep pairs are left out",
          "[compare]") {
  CompareScratch dir("twice");
  RecordSpec s;
  const auto file = dir.write("old.json", bw_repeats(s, {100, 101}, 1));
  const RecordSet twice = side_of({file, file});
  CHECK(twice.measurements.size() == 2);
  CHECK(any_contains(twice.notes, "2 records left out: read twice"));

  json period = bw_record(s, 100, 9);
  period["soak"] = {{"period", 1}, {"cut_short", false}};
  json summary = bw_record(s, 100, 9);
  summary["soak"] = {{"summary", true}, {"periods", 1}, {"stopped_by", "SIGINT on this side"}};
  const RecordSet soak = side_of({dir.write("soak.json", {period, summary})});
  CHECK(soak.measurements.size() == 1);
  CHECK(any_contains(soak.notes, "1 left out: soak period records"));
}

TEST_CASE("compare reading: a sweep folder's results.jsonl, failed pairs and re-tests left out", "[compare]") {
  const RecordSet sweep = side_of({std::string(RDMABENCH_TEST_DATA) + "/sweep"});
  REQUIRE_FALSE(sweep.measurements.empty());
  const Measurement& m = sweep.measurements.front();
  CHECK(m.key.role == "pair");
  CHECK_THAT(m.key.endpoints, Catch::Contains(" -> "));
  CHECK(m.key.parameters.count("pattern") == 1);
  CHECK(m.figures.count(m.key.test.ends_with("_bw") ? "bw_average_Gbps" : "lat_p99_us") == 1);
  CHECK(any_contains(sweep.notes, "re-test records"));
  CHECK(any_contains(sweep.notes, "sweep pairs that failed to measure"));
  // The sweep against itself: every pair matches, every figure the same.
  const Comparison c = compare_sides(sweep, sweep, {});
  CHECK(c.unmatched.empty());
  CHECK(c.count(Verdict::same) == c.rows.size());
}

TEST_CASE("compare reading: files that cannot be read are named, with the line", "[compare]") {
  CompareScratch dir("bad");
  REQUIRE_THROWS_MATCHES(side_of({(dir.path / "absent.json").string()}), rdmabench::Error,
                         MessageContains("absent.json' does not exist"));
  {
    std::ofstream out(dir.path / "bad.json");
    out << bw_record(RecordSpec{}, 100, 1).dump() << "\n{not json\n";
  }
  REQUIRE_THROWS_MATCHES(side_of({(dir.path / "bad.json").string()}), rdmabench::Error,
                         MessageContains("bad.json line 2 is not JSON"));
  json wrong = bw_record(RecordSpec{}, 100, 1);
  wrong["bandwidth"]["average_MBps"] = "fast";
  REQUIRE_THROWS_MATCHES(side_of({dir.write("wrong.json", {wrong})}), rdmabench::Error,
                         MessageContains("wrong.json line 1: field 'bandwidth.average_MBps' is string, not a number"));
  json old_schema = bw_record(RecordSpec{}, 100, 1);
  old_schema["schema_version"] = 1;
  REQUIRE_THROWS_MATCHES(side_of({dir.write("old_schema.json", {old_schema})}), rdmabench::Error,
                         MessageContains("schema_version 1"));
  const auto empty = dir.path / "empty";
  std::filesystem::create_directories(empty);
  REQUIRE_THROWS_MATCHES(side_of({empty.string()}), rdmabench::Error,
                         MessageContains("holds no results.jsonl and no *.json or *.jsonl file"));
  { std::ofstream blank(empty / "blank.json"); }
  REQUIRE_THROWS_MATCHES(side_of({empty.string()}), rdmabench::Error, MessageContains("no measured record to compare"));
}

}  // namespace compare_matching_cases
