// rdma_compare on real runs, RoCEv2 (rxe0), with --repeat: rdma_compare
// takes the repeats of a run (one run_id, repeat 1..N) as its samples, so a
// set of five costs one pair start. Sets "before" and "again" have the same
// settings; the "capped" set's bandwidth run has a --rate cap 20% below
// "before"'s average bandwidth. Against "before", the capped set's bandwidth
// regressed and its (unchanged) latency is the same; "again" is the same
// throughout. Four pair starts in all. The tables are printed for the
// record (docs/compare.md).
//
// The bandwidth runs are paced at 100 Mb/s: unpaced, the emulated guest's
// bandwidth moved between 17 and 43 MB/s from run to run on a busy host,
// and a 20% cap was inside that noise, which rdma_compare rightly called
// `same`. Paced runs hold their rate within a few percent (rate_test.cpp
// holds 50 to 200 Mb/s within 1% on rxe0 and siw0), so the cap's 20%
// stands out of the noise, as it would on hardware whose bandwidth is
// steady. 100 Mb/s is well below what rxe0 does, so no probe run is
// needed to choose it; each set's bandwidth is its own run.
//
// The latency is one run of twenty repeats, its odd repeats "before" and its
// even ones "again" (the capped set's latency is "again"'s: the cap is on
// the bandwidth run only). The guest's latency is its host's scheduler,
// and on the shared CI host it moves from one run to the next far more
// than within a run: with a write_lat --repeat 5 run a set, one run's
// average latency was 78 us (repeats 48 to 88) against the next's 44 us
// (42 to 53), and another's p99 2.3 ms against 6.0 ms, so rdma_compare
// called the unchanged latency `improved` and `regressed` - right for the
// samples it had, since repeats of one run show the noise within a run
// only (docs/compare.md). Alternating repeats is the alternation that
// docs/compare.md asks of runs, within one run.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>

#include "lab.hpp"

using namespace lab;
namespace fs = std::filesystem;

namespace {

constexpr int kRepeats = 5;
// Latency's repeats each side: the tail percentiles of one repeat swing
// widely on an emulated guest (p99 within a run 194 to 3982 us), and five a
// side came within 3% of a false "improved"; ten a side cost a second more.
constexpr int kLatencyRepeats = 10;

/// One run of `binary` on `d` with --repeat `repeats`; the client's
/// records go to `json`: one a repeat, all of one run_id.
void run_recorded(const std::string& binary, const Device& d, const Args& test, const Args& client_only,
                  int repeats, const fs::path& json) {
  Args server{"-d", d.name}, client{"-d", d.name, "--repeat", std::to_string(repeats), "--json", json.string()};
  server.insert(server.end(), test.begin(), test.end());
  client.insert(client.end(), test.begin(), test.end());
  client.insert(client.end(), client_only.begin(), client_only.end());
  const auto start = std::chrono::steady_clock::now();
  run_pair_ok(binary, server, d.address, client, 60);
  // Where the case's time goes, for docs/testing.md's CI budget.
  std::cout << fmt::format("{} --repeat {}: {:.1f} s\n", binary, repeats,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const auto records = read_json_lines(json.string());
  REQUIRE(records.size() == static_cast<std::size_t>(repeats));
  for (int k = 0; k < repeats; ++k) {
    CHECK(records[k].at("repeat") == k + 1);
    CHECK(records[k].at("run_id") == records[0].at("run_id"));
  }
}

/// rdma_compare OLD NEW with `extra`; its exit status and output.
struct Compared {
  int status = -1;
  std::string out, err;
};

Compared run_compare(const fs::path& old_dir, const fs::path& new_dir, const Args& extra = {}) {
  Args argv{bin("rdma_compare"), old_dir.string(), new_dir.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto start = std::chrono::steady_clock::now();
  const auto p = run_alone(argv);
  std::cout << fmt::format("rdma_compare {}: {:.1f} s\n", extra.empty() ? "(markdown)" : extra.at(1),
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return {*p->wait_for(std::chrono::seconds(0)), p->out(), p->err()};
}

/// Each comparison row's test, figure and verdict, from --format json.
nlohmann::json compared_rows(const fs::path& old_dir, const fs::path& new_dir, int expected_status) {
  const Compared c = run_compare(old_dir, new_dir, {"--format", "json"});
  INFO(c.err);
  REQUIRE(c.status == expected_status);
  return nlohmann::json::parse(c.out).at("comparisons");
}

}  // namespace

TEST_CASE("rdma_compare on RoCEv2: a 20% rate cap regresses the bandwidth, unchanged runs stay the same",
          "[lab][rxe][study]") {
  const Device d = roce();
  TempDir tmp;
  const fs::path before = tmp.path / "before", again = tmp.path / "again", capped = tmp.path / "capped";
  for (const auto& dir : {before, again, capped}) fs::create_directories(dir);
  // 16 KiB messages keep the message rate low enough for the pacer to hold
  // (as in rate_test.cpp); 300 of them are about 0.4 s a repeat at 100 Mb/s.
  const Args bw{"-s", "16384", "-n", "300"}, lat{"-s", "2", "-n", "500"};
  const std::string pace = "100Mbps";
  // The two unchanged bandwidth runs follow each other, so that a host that
  // gets busier shows in both.
  run_recorded("rdma_write_bw", d, bw, {"--rate", pace}, kRepeats, before / "bw.json");
  run_recorded("rdma_write_bw", d, bw, {"--rate", pace}, kRepeats, again / "bw.json");
  double sum = 0;
  for (const auto& record : read_json_lines((before / "bw.json").string()))
    sum += record.at("bandwidth").at("average_MBps").get<double>();
  const double average_MBps = sum / kRepeats;
  const std::string cap = fmt::format("{:.0f}Mbps", average_MBps * 8 * 0.8);
  run_recorded("rdma_write_bw", d, bw, {"--rate", cap}, kRepeats, capped / "bw.json");

  run_recorded("rdma_write_lat", d, lat, {}, 2 * kLatencyRepeats, tmp.path / "lat.json");
  {
    std::ofstream odd(before / "lat.json"), even(again / "lat.json");
    for (const auto& record : read_json_lines((tmp.path / "lat.json").string()))
      (record.at("repeat").get<int>() % 2 ? odd : even) << record.dump() << "\n";
  }
  fs::copy_file(again / "lat.json", capped / "lat.json");

  const Compared capped_table = run_compare(before, capped);
  std::cout << "rdma_compare before/ capped/ (write_bw --repeat " << kRepeats << " paced at " << pace
            << "; capped at " << cap << ", 80% of the first set's average " << fmt::format("{:.1f}", average_MBps)
            << " MB/s), exit " << capped_table.status << ":\n"
            << capped_table.out << "\n";
  CHECK(capped_table.status == 1);
  CHECK_THAT(capped_table.out, Catch::Contains("- **warning**: rate cap: "));
  for (const auto& row : compared_rows(before, capped, 1)) {
    INFO(row.at("test").at("label") << " " << row.at("figure") << ": " << row.at("verdict") << " "
                                    << row.at("change_text") << " " << row.at("note"));
    if (row.at("figure") == "bw_average_MBps" || row.at("figure") == "bw_message_rate_Mpps")
      CHECK(row.at("verdict") == "regressed");
    if (row.at("test").at("test") == "write_lat") CHECK(row.at("verdict") == "same");
    // Each side's samples are its run's repeats.
    const int repeats = row.at("test").at("test") == "write_lat" ? kLatencyRepeats : kRepeats;
    CHECK(row.at("old").at("n") == repeats);
    CHECK(row.at("new").at("n") == repeats);
  }

  const Compared same_table = run_compare(before, again);
  std::cout << "rdma_compare before/ again/ (the same settings: bandwidth runs one after the other, latency repeats alternating), exit " << same_table.status << ":\n"
            << same_table.out << "\n";
  CHECK(same_table.status == 0);
  for (const auto& row : compared_rows(before, again, 0)) {
    INFO(row.at("test").at("label") << " " << row.at("figure") << ": " << row.at("change_text") << " "
                                    << row.at("note"));
    CHECK(row.at("verdict") == "same");
  }

  // The HTML page: whole, self-contained, a plot per figure.
  const fs::path html = tmp.path / "compare.html";
  const Compared page = run_compare(before, capped, {"--format", "html", "--out", html.string()});
  CHECK(page.status == 1);
  const std::string text = read_file(html);
  CHECK_THAT(text, Catch::StartsWith("<!DOCTYPE html>") && Catch::EndsWith("</body></html>\n"));
  CHECK_THAT(text, Catch::Contains("<figure id=\"bw_average_MBps\"><svg"));
  if (const char* keep = std::getenv("RDMABENCH_KEEP_COMPARE_HTML")) fs::copy_file(html, keep, fs::copy_options::overwrite_existing);
}
