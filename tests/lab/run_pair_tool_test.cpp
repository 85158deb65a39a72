// tools/run-pair, as a user runs it: both sides' --json files, each named
// for its side, joined by one run id.
#include <filesystem>

#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

TEST_CASE("run-pair --json leaves each side a file of its own, both with the run's one id",
          "[lab][tools]") {
  const auto d = roce();
  TempDir tmp;
  const auto build = std::filesystem::path(RDMABENCH_BIN_DIR).parent_path();
  Process run({"/usr/bin/env", "RDMABENCH_BUILD=" + build.string(), "/usr/bin/python3",
               std::string(RDMABENCH_SOURCE_DIR) + "/tools/run-pair", "rdma_write_lat", d.name,
               d.address, "-n", "100", "--json", (tmp.path / "r.json").string()});
  INFO(run.describe());
  REQUIRE(run.wait_for(60s) == 0);
  CHECK_FALSE(std::filesystem::exists(tmp.path / "r.json"));
  const auto server = read_json_lines((tmp.path / "r.server.json").string());
  const auto client = read_json_lines((tmp.path / "r.client.json").string());
  REQUIRE(server.size() == 1);
  REQUIRE(client.size() == 1);
  CHECK(server[0].at("role") == "server");
  CHECK(client[0].at("role") == "client");
  CHECK(client[0].at("run_id").get<std::string>().size() == 14);
  CHECK(server[0].at("run_id") == client[0].at("run_id"));
}
