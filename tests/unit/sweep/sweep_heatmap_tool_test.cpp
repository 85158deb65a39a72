// rdma_sweep finds tools/sweep-heatmaps beside itself: installed as
// <prefix>/bin/rdmabench-sweep-heatmaps, and in the build tree through the
// link bench/CMakeLists.txt makes, so a sweep run from build/ draws its
// heatmaps without being installed or told.

#include "catch2_compat.hpp"

#include <cstdlib>
#include <filesystem>

#include "sweep/sweep_report.hpp"

namespace fs = std::filesystem;
using rdmabench::sweep_cli::find_heatmap_tool;

TEST_CASE("rdma_sweep in the build tree finds the source tree's sweep-heatmaps", "[sweep]") {
  ::unsetenv("RDMABENCH_SWEEP_HEATMAPS");
  const std::string tool = find_heatmap_tool(fs::path(RDMABENCH_BUILD_BENCH_DIR) / "rdma_sweep");
  REQUIRE_FALSE(tool.empty());
  const fs::path source_tool = fs::path(RDMABENCH_TEST_DATA).parent_path().parent_path() / "tools" / "sweep-heatmaps";
  CHECK(fs::equivalent(tool, source_tool));
}

TEST_CASE("rdma_sweep's heatmap tool: the environment first, nothing where there is none", "[sweep]") {
  ::unsetenv("RDMABENCH_SWEEP_HEATMAPS");
  CHECK(find_heatmap_tool(fs::temp_directory_path() / "no-such-folder" / "rdma_sweep").empty());
  CHECK(find_heatmap_tool({}).empty());
  ::setenv("RDMABENCH_SWEEP_HEATMAPS", "/opt/site/draw", 1);
  CHECK(find_heatmap_tool(fs::temp_directory_path() / "rdma_sweep") == "/opt/site/draw");
  ::unsetenv("RDMABENCH_SWEEP_HEATMAPS");
}
