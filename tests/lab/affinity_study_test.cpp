// tools/gdr-affinity-study in its quick form on rxe0: the reports exist, the
// host rows are measured with and without NUMA pinning, and GPU rows on a
// machine without GPU say "no GPU" (the lab guest never has one).
#include <filesystem>

#include "lab.hpp"

using namespace lab;

TEST_CASE("affinity study: quick host rows, GPU rows marked from rdma_topo", "[study]") {
  const auto d = roce();
  TempDir tmp;
  const auto out = tmp.path / "study";
  const auto build = std::filesystem::path(RDMABENCH_BIN_DIR).parent_path();
  Process study({"/usr/bin/env", "RDMABENCH_BUILD=" + build.string(), "/usr/bin/python3",
                 std::string(RDMABENCH_SOURCE_DIR) + "/tools/gdr-affinity-study", "--no-lab", "--quick",
                 "--iters", "100", "-d", d.name, "--address", d.address, "--out", out.string()});
  INFO(study.describe());
  REQUIRE(study.wait_for(std::chrono::seconds(240)) == 0);
  for (const char* file : {"affinity.md", "affinity.json", "affinity.png"})
    CHECK(std::filesystem::file_size(out / file) > 0);

  const auto j = nlohmann::json::parse(read_file(out / "affinity.json"));
  const bool has_gpu = !j.at("topology").at("gpus").empty();
  const auto& rows = j.at("rows");
  REQUIRE(rows.size() >= 4);
  const auto& host = rows.at(0);
  CHECK(host.at("placement") == "H->H");
  REQUIRE(host.at("status") == "measured");
  for (const char* test : {"write_bw", "read_bw", "write_lat"}) {
    INFO(test);
    const auto& pinned = host.at("results").at(test).at("auto");
    const auto& unpinned = host.at("results").at(test).at("off");
    CHECK(pinned.at("value").get<double>() > 0);
    CHECK(unpinned.at("value").get<double>() > 0);
    // The guest has one NUMA node, so rxe0 counts as on it and auto pins.
    CHECK(pinned.at("pinned_cpus") != "");
    CHECK(unpinned.at("pinned_cpus") == "");
  }
  const auto markdown = read_file(out / "affinity.md");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    INFO(rows[i].dump());
    if (!has_gpu) CHECK(rows[i].at("status") == "no GPU");
    else CHECK_FALSE(rows[i].at("gpu").is_null());
  }
  if (!has_gpu) CHECK_THAT(markdown, Catch::Contains("| H->D | no GPU | - | no GPU |"));
}
