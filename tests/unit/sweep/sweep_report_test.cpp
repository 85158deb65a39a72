// A sweep's report (lib/sweep/report*.cpp): the report of the recorded
// tests/data/sweep/results.jsonl (4 ranks; write_bw and write_lat;
// rank 3 slow in both, 0->1 failed to connect in write_bw; re-tests that
// confirm rank 3 and clear the 0-1 link) and of a healthy matrix.

#include "catch2_compat.hpp"
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rdmabench/sweep/record.hpp"
#include "rdmabench/sweep/report.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench::sweep;
using rdmabench::test::MessageContains;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("rdmabench-sweep-report-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<SweepRecord> recorded() {
  std::ifstream in(std::string(RDMABENCH_TEST_DATA) + "/sweep/results.jsonl");
  REQUIRE(in);
  return read_records(in);
}

std::vector<Endpoint> recorded_endpoints() {
  return {{0, "host-a", "mlx5_0", 0}, {1, "host-b", "mlx5_0", 0}, {2, "host-c", "mlx5_0", 0}, {3, "host-d", "mlx5_0", 0}};
}

ReportOptions recorded_options() {
  ReportOptions o;
  o.tests_in_order = {"write_bw", "write_lat"};
  o.bandwidth.absolute = 80;  // Gb/s
  o.bandwidth.min_share_of_median = 0.5;
  o.latency.max_multiple_of_best = 2;
  o.title = "rdma_sweep of the test fabric";
  o.notes = {"incomplete: nothing, this is a test"};
  return o;
}

/// The CSV's cells as rows of fields (no quoting in these files).
std::vector<std::vector<std::string>> csv(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(slurp(file));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
      fields.push_back(line.substr(start, comma - start));
    fields.push_back(line.substr(start));
    rows.push_back(fields);
  }
  return rows;
}

}  // namespace

TEST_CASE("the recorded sweep's report: every file, the right cells, the suspects", "[sweep]") {
  TempDir dir;
  const auto records = recorded();
  REQUIRE(records.size() == 31);
  const auto endpoints = recorded_endpoints();
  const ReportSummary summary = write_report(dir.path, records, endpoints, recorded_options());
  CHECK(summary.failed());
  for (const char* file : {"write_bw-bw_average_Gbps.csv", "write_bw-bw_peak_Gbps.csv", "write_bw-bw_message_rate_Mpps.csv",
                           "write_lat-lat_mean_us.csv", "write_lat-lat_median_us.csv", "write_lat-lat_p99_us.csv",
                           "write_lat-lat_p99_9_us.csv", "write_lat-lat_max_us.csv", "report.md", "report.html",
                           "failures.txt"})
    CHECK(fs::exists(dir.path / file));
  CHECK_FALSE(fs::exists(dir.path / "write_lat-bw_average_Gbps.csv"));

  SECTION("CSV cells") {
    const auto bw = csv(dir.path / "write_bw-bw_average_Gbps.csv");
    REQUIRE(bw.size() == 5);
    CHECK(bw[0] == std::vector<std::string>{"client\\server", "0:host-a:mlx5_0", "1:host-b:mlx5_0",
                                            "2:host-c:mlx5_0", "3:host-d:mlx5_0"});
    CHECK(bw[2][0] == "1:host-b:mlx5_0");
    CHECK(bw[1][1].empty());              // the diagonal: not measured
    CHECK(bw[1][2] == "FAILED");          // 0 -> 1 failed to connect
    CHECK(std::stod(bw[2][4]) == 41.1);   // 1 -> 3: rank 3 slow
    CHECK(std::stod(bw[3][1]) == 95.4);   // 2 -> 0
    CHECK(std::stod(bw[4][3]) == 41.2);   // 3 -> 2 in the sweep, not 41.0 of its re-test
    const auto p99 = csv(dir.path / "write_lat-lat_p99_us.csv");
    CHECK(std::stod(p99[4][2]) == 9.0);   // 3 -> 1
    CHECK(std::stod(p99[2][3]) == 3.15);  // 1 -> 2
  }
  SECTION("failures.txt names the slow node and the failed pair") {
    const std::string failures = slurp(dir.path / "failures.txt");
    // 0->1 failed to connect, and passed when measured again: reported, counted as nothing.
    CHECK_THAT(failures, Catch::Contains("NOT REPRODUCED write_bw rank 0 -> rank 1: failed to measure: rdma_cm connect"));
    CHECK_THAT(failures, Catch::Contains(" [passed its re-test]\n"));
    CHECK_THAT(failures, Catch::Contains("FAIL write_bw rank 1 -> rank 3: 41.1 Gb/s below the limit 80.0\n"));
    CHECK_THAT(failures, Catch::Contains("FAIL write_lat rank 3 -> rank 1: 9.00 us above 2 x best 3.05; judged on the "
                                         "p99 latency (the records do not say of how many samples)\n"));
    CHECK_THAT(failures, Catch::Contains("SUSPECT node rank 3 (host-d mlx5_0, rail 0): in write_bw, node rank 3"));
    CHECK_THAT(failures, Catch::Contains("SUSPECT node rank 3 (host-d mlx5_0, rail 0): in write_lat, "));
    CHECK_THAT(failures, Catch::Contains("[re-test: confirmed, 2 of 2 re-test pairs of rank 3"));
    CHECK_THAT(failures,
               Catch::Contains("NOT REPRODUCED link rank 0 (host-a mlx5_0, rail 0) - rank 1 (host-b mlx5_0, rail 0)"));
    CHECK_THAT(failures, Catch::Contains("[re-test: did not reproduce, the pair rank 0-rank 1 passes when measured again]"));
    CHECK_FALSE(failures.find("FAIL write_bw rank 0 -> rank 2") != std::string::npos);
    CHECK(summary.failing_pairs == 6 + 6);  // rank 3's pairs in both tests
    CHECK(summary.suspects == 2);
    CHECK(summary.not_reproduced == 2);     // 0->1 and the 0-1 link
  }
  SECTION("report.md and report.html carry the suspect sentence and the re-test") {
    const std::string md = slurp(dir.path / "report.md");
    const std::string html = slurp(dir.path / "report.html");
    const std::string sentence = "node rank 3 (host-d mlx5_0, rail 0) looks bad: 6 of its pairs fail";
    CHECK_THAT(md, Catch::Contains(sentence));
    CHECK_THAT(html, Catch::Contains(sentence));
    CHECK_THAT(md, Catch::StartsWith("# rdma_sweep of the test fabric\n"));
    CHECK_THAT(md, Catch::Contains("incomplete: nothing, this is a test"));
    CHECK_THAT(md, Catch::Contains("| 3 | host-d | mlx5_0 | 0 | 192.168.10.14 | 100 Gb/s | 28.39.1002 | host |"));
    CHECK_THAT(md, Catch::Contains("| 0:host-a:mlx5_0 | - | FAILED | 95.1 | 41.4 |"));
    CHECK_THAT(md, Catch::Contains("- rank 0 -> rank 1: rdma_cm connect to 192.168.10.12 timed out after 10 s"));
    CHECK_THAT(md, Catch::Contains("| rank 2 -> rank 3 | 41.5 | 41.5 Gb/s below the limit 80.0 |"));
    CHECK_THAT(md, Catch::Contains(": **confirmed**, 2 of 2 re-test pairs of rank 3"));
    CHECK_THAT(md, Catch::Contains(": **did not reproduce**, the pair rank 0-rank 1 passes when measured again"));
    CHECK_THAT(md, Catch::Contains("(1 of them did not reproduce on re-test)"));
    CHECK_THAT(html, Catch::Contains("<td class=\"failed\" title=\"rdma_cm connect to 192.168.10.12 timed out after 10 s\">FAILED</td>"));
    CHECK_THAT(html, Catch::Contains("<span class=\"confirmed\">confirmed</span>"));
    CHECK(html.find("http") == std::string::npos);  // self-contained: no URL
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("data:image/png") == std::string::npos);  // no PNG drawn yet
  }
}

TEST_CASE("report.html embeds the heatmap PNGs that are there", "[sweep]") {
  TempDir dir;
  std::ofstream(dir.path / "write_bw-bw_average_Gbps.png", std::ios::binary) << "\x89PNG";
  write_report(dir.path, recorded(), recorded_endpoints(), recorded_options());
  const std::string html = slurp(dir.path / "report.html");
  CHECK_THAT(html, Catch::Contains("src=\"data:image/png;base64,iVBORw==\""));
}

TEST_CASE("each round's report replaces the last one whole: a reader holding the old file keeps it",
          "[sweep]") {
  TempDir dir;
  write_report(dir.path, recorded(), recorded_endpoints(), recorded_options());
  const std::vector<std::string> names{"report.md", "report.html", "write_bw-bw_average_Gbps.csv"};
  std::vector<std::ifstream> readers;
  std::vector<std::string> before;
  for (const auto& name : names) {
    readers.emplace_back(dir.path / name, std::ios::binary);
    before.push_back(slurp(dir.path / name));
  }
  // The next round, with one record fewer. Written in place, the old files
  // would be truncated and rewritten under their readers.
  auto fewer = recorded();
  fewer.erase(fewer.begin());
  write_report(dir.path, fewer, recorded_endpoints(), recorded_options());
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    std::stringstream held;
    held << readers[i].rdbuf();
    CHECK(held.str() == before[i]);
    CHECK(slurp(dir.path / names[i]) != before[i]);
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir.path))
    CHECK(entry.path().extension() != ".partial");
}

TEST_CASE("a healthy sweep gives an empty failures.txt", "[sweep]") {
  TempDir dir;
  const auto endpoints = recorded_endpoints();
  std::vector<SweepRecord> records;
  for (const Endpoint& c : endpoints)
    for (const Endpoint& s : endpoints) {
      if (c.rank == s.rank) continue;
      SweepRecord r;
      r.test = "write_bw";
      r.client.endpoint = c;
      r.server.endpoint = s;
      r.figures.bw_average_Gbps = 95.0 + 0.1 * c.rank;
      records.push_back(r);
    }
  const ReportSummary summary = write_report(dir.path, records, endpoints, recorded_options());
  CHECK_FALSE(summary.failed());
  CHECK(fs::exists(dir.path / "failures.txt"));
  CHECK(slurp(dir.path / "failures.txt").empty());
  CHECK_THAT(slurp(dir.path / "report.md"), Catch::Contains("No suspect: no pair stands out."));
}

namespace {

/// Every ordered pair of `endpoints` in one latency test: p99 9 us for
/// 3 -> 1 (4.5 x best), 2.0 to 2.3 us for the others, medians all 1.1 us,
/// each of `samples` samples.
std::vector<SweepRecord> latency_records(const std::vector<Endpoint>& endpoints, std::uint64_t samples) {
  std::vector<SweepRecord> records;
  for (const Endpoint& c : endpoints)
    for (const Endpoint& s : endpoints) {
      if (c.rank == s.rank) continue;
      SweepRecord r;
      r.test = "write_lat";
      r.client.endpoint = c;
      r.server.endpoint = s;
      r.figures.lat_median_us = 1.1;
      r.figures.lat_p99_us = c.rank == 3 && s.rank == 1 ? 9.0 : 2.0 + 0.1 * c.rank;
      r.figures.lat_samples = samples;
      records.push_back(r);
    }
  return records;
}

}  // namespace

TEST_CASE("a latency verdict says how many samples it rests on, and a thin p99 is not judged", "[sweep]") {
  TempDir dir;
  const auto endpoints = recorded_endpoints();
  SECTION("300 samples a pair: the median is judged, and the outlying p99 fails nothing") {
    const ReportSummary summary = write_report(dir.path, latency_records(endpoints, 300), endpoints, recorded_options());
    CHECK_FALSE(summary.failed());
    const std::string md = slurp(dir.path / "report.md");
    CHECK_THAT(md, Catch::Contains("Judged on the median latency, of 300 samples a pair: a p99 of fewer than 1000 "
                                   "samples is one of the 10 worst"));
    CHECK_THAT(md, Catch::Contains("run -n 1000 or more to judge the p99"));
    CHECK_THAT(slurp(dir.path / "report.html"), Catch::Contains("Judged on the median latency, of 300 samples a pair"));
  }
  SECTION("5000 samples a pair: the p99 is judged, and its failure says on how many samples") {
    const ReportSummary summary = write_report(dir.path, latency_records(endpoints, 5000), endpoints, recorded_options());
    CHECK(summary.failed());
    CHECK_THAT(slurp(dir.path / "failures.txt"),
               Catch::Contains("FAIL write_lat rank 3 -> rank 1: 9.00 us above 2 x best 2.00; judged on the p99 "
                               "latency, of 5000 samples a pair\n"));
  }
}

TEST_CASE("a failure that its re-test does not reproduce is reported and fails nothing", "[sweep]") {
  TempDir dir;
  const auto endpoints = recorded_endpoints();
  std::vector<SweepRecord> records;
  for (const Endpoint& c : endpoints)
    for (const Endpoint& s : endpoints) {
      if (c.rank == s.rank) continue;
      SweepRecord r;
      r.test = "write_bw";
      r.client.endpoint = c;
      r.server.endpoint = s;
      r.figures.bw_average_Gbps = c.rank == 2 && s.rank == 3 ? 20.0 : 95.0;  // one slow pair: a link suspect
      records.push_back(r);
    }
  SweepRecord again = records.front();
  again.pass = SweepPass::retest;
  again.client.endpoint = endpoints[2];
  again.server.endpoint = endpoints[3];
  again.figures.bw_average_Gbps = 94.0;

  const ReportSummary before = write_report(dir.path, records, endpoints, recorded_options());
  CHECK(before.failed());  // not re-tested: the failure stands
  records.push_back(again);
  const ReportSummary after = write_report(dir.path, records, endpoints, recorded_options());
  CHECK_FALSE(after.failed());
  CHECK(after.not_reproduced == 2);  // the pair and its link suspect
  const std::string failures = slurp(dir.path / "failures.txt");
  CHECK_THAT(failures, Catch::StartsWith("NOT REPRODUCED write_bw rank 2 -> rank 3: 20.0 Gb/s below"));
  CHECK_THAT(failures, Catch::Contains("[re-test: did not reproduce, the pair rank 2-rank 3 passes when measured again]"));
  CHECK(failures.find("FAIL ") == std::string::npos);
  CHECK(failures.find("SUSPECT ") == std::string::npos);
  CHECK_THAT(slurp(dir.path / "report.md"), Catch::Contains("(did not reproduce on re-test)"));
}

TEST_CASE("the report refuses records of a rank that is not an endpoint", "[sweep]") {
  TempDir dir;
  auto records = recorded();
  records[0].server.endpoint.rank = 7;
  REQUIRE_THROWS_MATCHES(write_report(dir.path, records, recorded_endpoints(), recorded_options()), rdmabench::Error,
                         MessageContains("a record names rank 7, which is not one of the 4 endpoints"));
}

TEST_CASE("free text is escaped for each output: CSV quotes, Markdown pipes, HTML markup", "[sweep]") {
  TempDir dir;
  const std::vector<Endpoint> endpoints{{0, "rack 1, host a", "mlx5_0", 0}, {1, "host-b", "mlx5_0", 0}};
  SweepRecord failed;
  failed.test = "write_bw";
  failed.client.endpoint = endpoints[0];
  failed.server.endpoint = endpoints[1];
  failed.error = "peer said <refused> | try again";
  failed.client.firmware = "20.1|beta";
  SweepRecord measured = failed;
  std::swap(measured.client, measured.server);
  measured.error.clear();
  measured.figures.bw_average_Gbps = 90;
  write_report(dir.path, std::vector{failed, measured}, endpoints, {});
  CHECK_THAT(slurp(dir.path / "write_bw-bw_average_Gbps.csv"),
             Catch::StartsWith("client\\server,\"0:rack 1, host a:mlx5_0\",1:host-b:mlx5_0\n"
                               "\"0:rack 1, host a:mlx5_0\",,FAILED\n1:host-b:mlx5_0,90,\n"));
  const std::string md = slurp(dir.path / "report.md");
  CHECK_THAT(md, Catch::Contains("| 0 | rack 1, host a | mlx5_0 | 0 |  | - | 20.1\\|beta |  |"));  // a table cell
  CHECK_THAT(md, Catch::Contains("- rank 0 -> rank 1: peer said <refused> | try again\n"));          // a list item
  const std::string html = slurp(dir.path / "report.html");
  CHECK_THAT(html, Catch::Contains("title=\"peer said &lt;refused&gt; | try again\""));
  CHECK(html.find("<refused>") == std::string::npos);
}
