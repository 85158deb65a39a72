// tools/gdr-affinity-study in its quick form on rxe0: the reports exist, the
// host rows are measured with and without NUMA pinning, and the GPU rows
// (H->D, D->H, D->D, each with relaxed ordering on and off) run on the CUDA
// stand-in, labelled so, where it is built; else they say "no GPU" (the lab
// guest never has one).
#include <filesystem>

#include "lab.hpp"

using namespace lab;

namespace {

#ifdef RDMABENCH_CUDA_STANDIN
constexpr bool kStandin = true;
#else
constexpr bool kStandin = false;
#endif

}  // namespace

TEST_CASE("affinity study: quick host rows, GPU rows on the stand-in with relaxed ordering on and off",
          "[study]") {
  const auto d = roce();
  TempDir tmp;
  const auto out = tmp.path / "study";
  const auto build = std::filesystem::path(RDMABENCH_BIN_DIR).parent_path();
  Process study({"/usr/bin/env", "RDMABENCH_BUILD=" + build.string(), "/usr/bin/python3",
                 std::string(RDMABENCH_SOURCE_DIR) + "/tools/gdr-affinity-study", "--no-lab", "--quick",
                 // One repeat: the CI's time; tests/unit/tools/spread_test.py
                 // checks the median, range and within-noise logic.
                 "--iters", "100", "--repeats", "1", "--tests", "write_bw", "--devices", d.name + ":" + d.address,
                 "--out", out.string()});
  INFO(study.describe());
  REQUIRE(study.wait_for(std::chrono::seconds(280)) == 0);
  for (const char* file : {"affinity.md", "affinity.json", "affinity.png"})
    CHECK(std::filesystem::file_size(out / file) > 0);

  const auto j = nlohmann::json::parse(read_file(out / "affinity.json"));
  REQUIRE(j.at("topology").at("gpus").empty());  // the guest has no GPU
  CHECK(j.at("schema_version") == 2);  // as the pair JSON's records
  CHECK_THAT(j.at("started_utc").get<std::string>(), Catch::EndsWith("Z"));
  const auto& rows = j.at("rows");
  const auto& host = rows.at(0);
  CHECK(host.at("placement") == "H->H");
  REQUIRE(host.at("status") == "measured");
  for (const char* test : {"write_bw"}) {
    INFO(test);
    const auto& pinned = host.at("results").at(test).at("auto");
    const auto& unpinned = host.at("results").at(test).at("off");
    CHECK(pinned.at("value").get<double>() > 0);
    CHECK(unpinned.at("value").get<double>() > 0);
    CHECK(pinned.at("spread").at("runs") == 1);  // the binary's --repeat 1: one record
    CHECK(pinned.at("spread").at("median") == pinned.at("value"));
    // The guest has one NUMA node, so rxe0 counts as on it and auto pins.
    CHECK(pinned.at("pinned_cpus") != "");
    CHECK(unpinned.at("pinned_cpus") == "");
  }
  CHECK_FALSE(host.at("results").contains("read_bw"));  // not asked for
  CHECK_FALSE(host.at("results").contains("write_lat"));
  const auto markdown = read_file(out / "affinity.md");
  CHECK_THAT(markdown, Catch::Contains("one run (1 run: no range)"));
  CHECK_THAT(markdown, Catch::Contains("| 1 run: no range |"));  // the H->H row's auto vs off
  if (!kStandin) {
    for (std::size_t i = 1; i < rows.size(); ++i) CHECK(rows[i].at("status") == "no GPU");
    CHECK_THAT(markdown, Catch::Contains("| H->D | no GPU | - | - | no GPU |"));
    return;
  }
  REQUIRE(rows.size() == 7);  // H->H, then H->D, D->H, D->D with relaxed ordering on and off
  for (std::size_t i = 1; i < rows.size(); ++i) {
    INFO(rows[i].dump());
    CHECK(rows[i].at("status") == "measured");
    CHECK(rows[i].at("relaxed_ordering") == (i % 2 == 1 ? "on" : "off"));
    for (const char* numa : {"auto", "off"}) CHECK(rows[i]["results"]["write_bw"][numa].value("value", 0.0) > 0);
  }
  CHECK_THAT(markdown, Catch::Contains("| D->H | stand-in GPU (host memory, no GPU) | stand-in | off |"));
  CHECK_THAT(markdown, Catch::Contains("no GPU is measured"));
}
