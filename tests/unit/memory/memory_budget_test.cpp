// Whether a run fits this host, decided before connecting.
#include "catch2_compat.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "memory/memory_budget.hpp"

using namespace rdmabench;
using namespace rdmabench::detail;

TEST_CASE("memory budget: a counted latency run needs 24 bytes a message and two buffers",
          "[memory_budget]") {
  TestSpec s;
  s.measurement = Measurement::latency;
  s.iterations = 1000;
  s.warmup = 100;
  s.sizes = {4096};
  CHECK(bytes_needed(s) == 2 * 4096 + (1000 + 100 + 1) * 24);
  s.duration_s = 5;  // a histogram of fixed size instead of the samples
  CHECK(bytes_needed(s) == 2 * 4096);
  s.measurement = Measurement::bandwidth;
  s.duration_s = 0;
  CHECK(bytes_needed(s) == 2 * 4096);
}

TEST_CASE("memory budget: a run beyond what is available is refused, naming -D", "[memory_budget]") {
  TestSpec s;
  s.measurement = Measurement::latency;
  s.iterations = 1'000'000'000;
  s.warmup = 100;
  s.sizes = {2};
  const auto problem = find_memory_shortfall(s, std::uint64_t{2} << 30);
  REQUIRE(problem.has_value());
  CHECK_THAT(*problem, Catch::Contains("this run needs 22.4 GiB of memory"));
  CHECK_THAT(*problem, Catch::Contains("this host has 2.0 GiB available"));
  CHECK_THAT(*problem, Catch::Contains("give -D SECONDS"));
  CHECK_FALSE(find_memory_shortfall(s, std::nullopt).has_value());  // unknown: do not guess
  s.iterations = 1000;
  CHECK_FALSE(find_memory_shortfall(s, std::uint64_t{2} << 30).has_value());
}

TEST_CASE("memory budget: MemAvailable is read from meminfo", "[memory_budget]") {
  const auto path = std::filesystem::temp_directory_path() / "rdmabench-meminfo-test";
  std::ofstream(path) << "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n";
  CHECK(available_memory(path.string()) == std::uint64_t{2048} * 1024);
  std::filesystem::remove(path);
  CHECK_FALSE(available_memory("/nonexistent/meminfo").has_value());
}
