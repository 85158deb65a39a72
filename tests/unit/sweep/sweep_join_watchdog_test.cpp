// rdma_sweep's bound on joining the job: a rank that cannot join (another
// is stopped before MPI_Init completes) ends itself instead of waiting.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "catch2_compat.hpp"
#include "sweep/join_watchdog.hpp"

using rdmabench::sweep_cli::JoinWatchdog;

TEST_CASE("rdma_sweep's join watchdog fires when the join does not come, and not after it",
          "[sweep]") {
  std::atomic<int> fired{0};
  {
    JoinWatchdog never_joined(0.05, [&] { ++fired; });
    for (int i = 0; i < 400 && !fired; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(fired == 1);
  {
    JoinWatchdog joined(30.0, [&] { ++fired; });
    joined.disarm();  // the destructor then ends the wait at once, not after 30 s
  }
  CHECK(fired == 1);
}

TEST_CASE(
    "rdma_sweep's join limit is --timeout plus 30 s, the default when the line does not parse",
    "[sweep]") {
  const auto limit_of = [](std::vector<std::string> words) {
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    return rdmabench::sweep_cli::join_limit_seconds(static_cast<int>(argv.size()), argv.data());
  };
  CHECK(limit_of({"rdma_sweep", "-d", "mlx5_0", "--out", "results", "--timeout", "5"}) == 35.0);
  CHECK(limit_of({"rdma_sweep", "-d", "mlx5_0", "--out", "results"}) == 40.0);
  CHECK(limit_of({"rdma_sweep", "--timeout", "5", "--no-such-option"}) == 40.0);
}
