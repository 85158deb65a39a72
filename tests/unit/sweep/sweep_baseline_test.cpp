// A sweep's report against a baseline sweep (lib/sweep/report_baseline.cpp,
// rdma_sweep --baseline): pairs matched by host and device whatever their
// ranks, the change matrix as a CSV for the heatmap tool, the pairs that
// moved past the threshold in report.md and report.html, and the counts
// the binary prints.

#include "catch2_compat.hpp"
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rdmabench/sweep/record.hpp"
#include "rdmabench/sweep/report.hpp"

using namespace rdmabench::sweep;
namespace fs = std::filesystem;

namespace {

struct BaselineScratch {
  fs::path path = fs::temp_directory_path() / ("rdmabench-sweep-baseline-" + std::to_string(::getpid()));
  BaselineScratch() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~BaselineScratch() { fs::remove_all(path); }
};

std::string baseline_report_text(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<SweepRecord> recorded_sweep() {
  std::ifstream in(std::string(RDMABENCH_TEST_DATA) + "/sweep/results.jsonl");
  REQUIRE(in);
  return read_records(in);
}

SweepRecord* find_pair(std::vector<SweepRecord>& records, const std::string& test, const std::string& client,
                       const std::string& server) {
  for (SweepRecord& r : records)
    if (r.test == test && r.pass == SweepPass::sweep && r.client.endpoint.host == client &&
        r.server.endpoint.host == server)
      return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("sweep against a baseline: moved pairs marked, the change matrix written, ranks renumbered", "[sweep]") {
  BaselineScratch dir;
  const auto records = recorded_sweep();
  // The baseline: the same sweep, its ranks numbered otherwise, where
  // host-c -> host-a was faster (now 20% slower) and host-b -> host-d slower.
  auto baseline_records = records;
  find_pair(baseline_records, "write_bw", "host-c", "host-a")->figures.bw_average_Gbps = 95.4 / 0.8;
  find_pair(baseline_records, "write_bw", "host-b", "host-d")->figures.bw_average_Gbps = 30;
  for (SweepRecord& r : baseline_records) {
    r.client.endpoint.rank = (r.client.endpoint.rank + 1) % 4;
    r.server.endpoint.rank = (r.server.endpoint.rank + 1) % 4;
  }
  ReportOptions options;
  options.tests_in_order = {"write_bw", "write_lat"};
  options.baseline = Baseline{"sweep-before/", baseline_records, {}};
  const std::vector<Endpoint> endpoints{{0, "host-a", "mlx5_0", 0}, {1, "host-b", "mlx5_0", 0},
                                        {2, "host-c", "mlx5_0", 0}, {3, "host-d", "mlx5_0", 0}};
  const ReportSummary summary = write_report(dir.path, records, endpoints, options);
  CHECK(summary.regressed_pairs == 1);
  CHECK(summary.improved_pairs == 1);

  // The change in percent, row client, column server: 2 -> 0 fell 20%.
  const std::string change = baseline_report_text(dir.path / "write_bw-change_bw_average_Gbps.csv");
  std::istringstream rows(change);
  std::string header, row0, row1, row2;
  std::getline(rows, header);
  std::getline(rows, row0);
  std::getline(rows, row1);
  std::getline(rows, row2);
  CHECK(header == "client\\server,0:host-a:mlx5_0,1:host-b:mlx5_0,2:host-c:mlx5_0,3:host-d:mlx5_0");
  REQUIRE(row2.rfind("2:host-c:mlx5_0,", 0) == 0);
  const std::string to_host_a = row2.substr(row2.find(',') + 1, row2.find(',', row2.find(',') + 1) - row2.find(',') - 1);
  CHECK(std::stod(to_host_a) == Approx(-20));
  CHECK(fs::exists(dir.path / "write_lat-change_lat_p99_us.csv"));

  const std::string md = baseline_report_text(dir.path / "report.md");
  CHECK_THAT(md, Catch::Contains("### Against the baseline"));
  CHECK_THAT(md, Catch::Contains("in the baseline sweep sweep-before/. A sweep measures a pair once: there is no "
                                 "noise estimate, so a pair moved when its change passes the threshold alone (3%)"));
  CHECK_THAT(md, Catch::Contains("| rank 2 -> rank 0 | 119 | 95.4 | -20.0% | **regressed** |"));
  CHECK_THAT(md, Catch::Contains("| rank 1 -> rank 3 | 30.0 | 41.1 | +37.0% | **improved** |"));
  CHECK(md.find("rank 2 -> rank 0 | 119") < md.find("rank 1 -> rank 3 | 30.0"));  // regressed first
  CHECK_THAT(md, Catch::Contains("change of bandwidth against the baseline (%); row: client"));

  const std::string html = baseline_report_text(dir.path / "report.html");
  CHECK_THAT(html, Catch::Contains("<div class=\"baseline-heatmap\" id=\"write_bw-change_bw_average_Gbps\">"));
  CHECK_THAT(html, Catch::Contains("<td style=\"background:hsl(0,70%,60%)\">-20.0%</td>"));
  CHECK_THAT(html, Catch::Contains(">improved</td>"));
  // failures.txt lists what fails the sweep; a move against the baseline does not.
  CHECK(baseline_report_text(dir.path / "failures.txt").find("baseline") == std::string::npos);
}

TEST_CASE("sweep against a baseline that holds none of a test's pairs: said, no matrix", "[sweep]") {
  BaselineScratch dir;
  const auto records = recorded_sweep();
  std::vector<SweepRecord> only_bw;
  for (const SweepRecord& r : records)
    if (r.test == "write_bw") only_bw.push_back(r);
  ReportOptions options;
  options.baseline = Baseline{"old/", only_bw, {}};
  const std::vector<Endpoint> endpoints{{0, "host-a", "mlx5_0", 0}, {1, "host-b", "mlx5_0", 0},
                                        {2, "host-c", "mlx5_0", 0}, {3, "host-d", "mlx5_0", 0}};
  const ReportSummary summary = write_report(dir.path, records, endpoints, options);
  CHECK(summary.regressed_pairs == 0);
  const std::string md = baseline_report_text(dir.path / "report.md");
  CHECK_THAT(md, Catch::Contains("The baseline holds none of this test's 12 measured pairs."));
  CHECK_THAT(md, Catch::Contains("11 pairs compared: 0 regressed, 0 improved"));
}
