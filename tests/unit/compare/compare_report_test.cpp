// The three reports of a comparison (lib/compare/report_*.cpp): the table
// worst first with its intervals, the JSON's numbers, and an HTML page that
// stands alone with one plot per figure.

#include "catch2_compat.hpp"

#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "compare_fixtures.hpp"
#include "rdmabench/compare/report.hpp"

// In a namespace of its own, with the names it uses declared in it: the
// unity build puts other files' `using namespace rdmabench` (its Measurement)
// and `rdmabench::sweep` (its Better, Verdict, Thresholds) before these.
namespace compare_report_cases {

using namespace rdmabench::compare;
using namespace compare_test;
using rdmabench::compare::Better;
using rdmabench::compare::Measurement;
using rdmabench::compare::Thresholds;
using rdmabench::compare::Verdict;

namespace {

struct ComparedSides {
  Comparison comparison;
  ReportInputs inputs;
};

/// A bandwidth that fell 20% (and with it its message rate and peak) and a
/// latency that stayed, five repeats a side, and a firmware that changed.
ComparedSides regressed_bandwidth(const CompareScratch& dir) {
  RecordSpec bw_old, bw_new, lat_old, lat_new;
  bw_old.firmware = lat_old.firmware = "1.0";
  bw_new.firmware = lat_new.firmware = "2.0";
  lat_old.test = lat_new.test = "write_lat";
  lat_old.bytes = lat_new.bytes = 2;
  auto olds = bw_repeats(bw_old, {100, 102, 98, 101, 99}, 1);
  auto news = bw_repeats(bw_new, {80, 81, 79, 80.5, 79.5}, 11);
  const double medians[] = {10, 10.2, 9.9, 10.1, 10.05};
  for (std::uint64_t i = 0; i < 5; ++i) {
    olds.push_back(lat_record(lat_old, medians[i], 20 + static_cast<double>(i), 20 + i));
    news.push_back(lat_record(lat_new, medians[4 - i], 20 + static_cast<double>(i), 30 + i));
  }
  const RecordSet a = read_side(std::vector<std::string>{dir.write("old.json", olds)});
  const RecordSet b = read_side(std::vector<std::string>{dir.write("new.json", news)});
  ComparedSides sides{compare_sides(a, b, {}), {a.files, b.files, a.notes, b.notes, {}}};
  return sides;
}

}  // namespace

TEST_CASE("compare report: markdown, worst first, with the drift before the table", "[compare]") {
  CompareScratch dir("markdown");
  const auto sides = regressed_bandwidth(dir);
  std::ostringstream out;
  write_markdown(out, sides.comparison, sides.inputs);
  const std::string md = out.str();
  INFO(md);
  CHECK_THAT(md, Catch::StartsWith("# rdma_compare: 3 regressed, 8 same, 0 improved"));
  CHECK_THAT(md, Catch::Contains("- **warning**: firmware: 1.0 (old) -> 2.0 (new), in all 2 matched tests"));
  CHECK(md.find("## Context that differs") < md.find("## Changes, worst first"));
  // The first row of the table is the regression, with both sides' medians,
  // ranges and counts, the change and its interval.
  const auto first_row = md.substr(md.find("|---|"));
  CHECK(std::regex_search(first_row, std::regex(R"(\n\| \*\*regressed\*\* \| bandwidth \(MB/s\) \| write_bw 65536 B client \| )"
                                                R"(100 \[98\.0-102\] n=5 \| 80\.0 \[79\.0-81\.0\] n=5 \| -20\.0% \| -2\d\.\d% to -1\d\.\d% \| 3% \|)")));
  CHECK_THAT(md, Catch::Contains("| same | p99 latency (us) | write_lat 2 B client | 22.0 [20.0-24.0] n=5 | 22.0 [20.0-24.0] n=5 | 0% |"));
  CHECK_THAT(md, Catch::Contains("## Matched tests"));
}

TEST_CASE("compare report: JSON with the numbers, the verdicts and the method", "[compare]") {
  CompareScratch dir("json");
  const auto sides = regressed_bandwidth(dir);
  std::ostringstream out;
  write_json(out, sides.comparison, sides.inputs);
  const json j = json::parse(out.str());
  CHECK(j.at("summary").at("regressed") == 3);
  CHECK(j.at("summary").at("matched_tests") == 2);
  CHECK(j.at("method").at("resamples") == 2000);
  CHECK(j.at("context_drift").size() == 1);
  const json& first = j.at("comparisons").at(0);
  CHECK(first.at("figure") == "bw_average_MBps");
  CHECK(first.at("verdict") == "regressed");
  CHECK(first.at("change").get<double>() == Approx(-0.2));
  CHECK(first.at("interval").at("high").get<double>() < -0.03);
  CHECK(first.at("old").at("values").size() == 5);
  CHECK(first.at("test").at("role") == "client");
}

TEST_CASE("compare report: an HTML page with no outside reference and one plot per figure", "[compare]") {
  CompareScratch dir("html");
  const auto sides = regressed_bandwidth(dir);
  std::ostringstream out;
  write_html(out, sides.comparison, sides.inputs);
  const std::string html = out.str();
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::EndsWith("</body></html>\n"));
  // Self-contained: the only URL is SVG's namespace name, which nothing fetches.
  std::string without_namespace = std::regex_replace(html, std::regex("xmlns=\"http://www.w3.org/2000/svg\""), "");
  CHECK(without_namespace.find("http") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  // One <svg> per figure key among the rows.
  std::set<std::string> figures;
  for (const FigureComparison& r : sides.comparison.rows) figures.insert(r.figure.key);
  std::size_t plots = 0;
  for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++plots;
  CHECK(plots == figures.size());
  CHECK_THAT(html, Catch::Contains("<figure id=\"bw_average_MBps\"><svg"));
  CHECK_THAT(html, Catch::Contains("-20.0% regressed"));
  CHECK_THAT(html, Catch::Contains("<tr class=\"regressed\"><td class=\"verdict\">regressed</td>"));
  CHECK_THAT(html, Catch::Contains("<b>Warning:</b> firmware: 1.0 (old) -&gt; 2.0 (new)"));
}

TEST_CASE("compare report: two tests that read alike are numbered, and told apart by what differs", "[compare]") {
  CompareScratch dir("alike");
  RecordSpec short_run, long_run;
  long_run.iterations = 5000;
  auto olds = bw_repeats(short_run, {100, 101}, 1), news = bw_repeats(short_run, {100, 101}, 11);
  for (const json& r : bw_repeats(long_run, {100, 101}, 21)) olds.push_back(r);
  for (const json& r : bw_repeats(long_run, {100, 101}, 31)) news.push_back(r);
  const RecordSet a = read_side(std::vector<std::string>{dir.write("old.json", olds)});
  const RecordSet b = read_side(std::vector<std::string>{dir.write("new.json", news)});
  std::ostringstream out;
  write_markdown(out, compare_sides(a, b, {}), {a.files, b.files, a.notes, b.notes, {}});
  const std::string md = out.str();
  INFO(md);
  CHECK_THAT(md, Catch::Contains("| write_bw 65536 B client [1] |"));
  CHECK_THAT(md, Catch::Contains("| write_bw 65536 B client [2] |"));
  CHECK_THAT(md, Catch::Contains("1. write_bw 65536 B client [1]: write_bw 65536 B, client at host-a, peer server "
                                 "10.0.2.15 (iterations=2000)"));
  CHECK_THAT(md, Catch::Contains("(iterations=5000)\n"));
  // The parameters both share are not listed.
  CHECK(md.find("qp_type=") == std::string::npos);
}

TEST_CASE("compare report: changes written as people read them", "[compare]") {
  CHECK(change_text(-0.2) == "-20.0%");
  CHECK(change_text(0.0312) == "+3.1%");
  CHECK(change_text(0) == "0%");
  CHECK(change_text(2.5) == "+250%");
  CHECK(change_text(std::numeric_limits<double>::infinity()) == "from 0");
}

}  // namespace compare_report_cases
