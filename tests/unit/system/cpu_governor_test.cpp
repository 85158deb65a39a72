// perftest's -F check, on fake sysfs trees.
#include "catch2_compat.hpp"
#include <unistd.h>

#include <fstream>

#include "rdmabench/system/cpu_governor.hpp"

namespace {

struct FakeCpuTree {
  std::filesystem::path root = std::filesystem::temp_directory_path() /
                               ("rdmabench-cpufreq-" + std::to_string(::getpid()));
  FakeCpuTree() { std::filesystem::create_directories(root); }
  ~FakeCpuTree() { std::filesystem::remove_all(root); }
  void cpu(int n, const char* governor) {
    const auto dir = root / ("cpu" + std::to_string(n)) / "cpufreq";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "scaling_governor") << governor << "\n";
  }
};

}  // namespace

TEST_CASE("governor: all CPUs at performance give no warning", "[governor]") {
  FakeCpuTree t;
  t.cpu(0, "performance");
  t.cpu(1, "performance");
  CHECK_FALSE(rdmabench::governor_warning(t.root));
}

TEST_CASE("governor: the first CPU not at performance is named", "[governor]") {
  FakeCpuTree t;
  t.cpu(0, "performance");
  t.cpu(1, "powersave");
  t.cpu(2, "schedutil");
  const auto warning = rdmabench::governor_warning(t.root);
  REQUIRE(warning);
  CHECK_THAT(*warning, Catch::Contains("governor of cpu1 is 'powersave', not 'performance'"));
}

TEST_CASE("governor: no cpufreq (VMs) or no tree at all gives no warning", "[governor]") {
  FakeCpuTree t;
  std::filesystem::create_directories(t.root / "cpu0");  // no cpufreq folder
  std::filesystem::create_directories(t.root / "cpufreq");  // not a CPU
  CHECK_FALSE(rdmabench::governor_warning(t.root));
  CHECK_FALSE(rdmabench::governor_warning(t.root / "missing"));
}
