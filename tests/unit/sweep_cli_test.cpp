// rdma_sweep's MPI-free parts (bench/sweep): its options, refusals of what
// it does not run yet, pair-server ports, and the results it writes.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli/options.hpp"
#include "sweep/sweep_options.hpp"
#include "sweep/sweep_results.hpp"

using namespace rdmabench;
using namespace rdmabench::sweep_cli;

namespace {

SweepOptions parse(std::vector<std::string> extra) {
  std::vector<std::string> args{"-d", "mlx5_0", "--out", "results"};
  args.insert(args.end(), extra.begin(), extra.end());
  return parse_sweep_options(args);
}

std::string read_all(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("rdma_sweep options: write_bw with -s and -n", "[unit][sweep]") {
  const auto o = parse({"-s", "4K", "-n", "200", "--timeout", "3", "--skip-same-host", "--address", "10.0.0.5"});
  CHECK(o.device == "mlx5_0");
  CHECK(o.out_dir == "results");
  CHECK(o.spec.operation == Operation::write);
  CHECK(o.spec.measurement == Measurement::bandwidth);
  CHECK(o.spec.sizes == std::vector<std::uint64_t>{4096});
  CHECK(o.spec.iterations == 200);
  CHECK(o.timeout_s == 3);
  CHECK(o.skip_same_host);
  CHECK(o.address == "10.0.0.5");
}

TEST_CASE("rdma_sweep options: what it does not run yet is refused by name", "[unit][sweep]") {
  CHECK_THROWS_WITH(parse({"--pattern", "ring"}), Catch::Contains("--pattern ring is not supported yet"));
  CHECK_THROWS_WITH(parse({"--test", "read_lat"}), Catch::Contains("--test read_lat is not supported yet"));
  CHECK_THROWS_WITH(parse_sweep_options({"--out", "x"}), Catch::Contains("-d DEV is required"));
  CHECK_THROWS_WITH(parse_sweep_options({"-d", "rxe0"}), Catch::Contains("--out DIR is required"));
  CHECK_THROWS_WITH(parse({"-n", "0"}), Catch::Contains("-n/--iters 0 is out of range"));
  CHECK_THROWS_AS(parse({"--no-such-option"}), cli::UsageError);
}

TEST_CASE("rdma_sweep pair-server ports: two per rank, all below 65536", "[unit][sweep]") {
  CHECK(pair_server_port(18515, 0, 4) == 18515);
  CHECK(pair_server_port(18515, 3, 4) == 18521);
  CHECK(pair_server_port(65530, 2, 3) == 65534);
  CHECK_THROWS_WITH(pair_server_port(65530, 0, 4), Catch::Contains("leaves no room for 4 ranks"));
}

TEST_CASE("rdma_sweep results: records survive the trip to rank 0", "[unit][sweep]") {
  const std::vector<PairRecord> sent{{0, {0, 1}, 95.5, {}}, {1, {1, 0}, std::nullopt, "connect timed out"}};
  const auto got = decode_records(encode_records(sent));
  REQUIRE(got.size() == 2);
  CHECK(got[0].pair == sweep::DirectedPair{0, 1});
  CHECK(got[0].gbits_per_s == 95.5);
  CHECK(got[1].round == 1);
  CHECK_FALSE(got[1].gbits_per_s);
  CHECK(got[1].error == "connect timed out");
  CHECK(decode_records(encode_records({})).empty());
}

TEST_CASE("rdma_sweep results: one JSON line per pair and a report with the table", "[unit][sweep]") {
  const std::vector<sweep::Endpoint> endpoints{{0, "a", "mlx5_0", 0}, {1, "b", "mlx5_0", 0}};
  const std::vector<PairRecord> records{{1, {1, 0}, std::nullopt, "connect timed out"}, {0, {0, 1}, 95.5, {}}};
  const auto dir = std::filesystem::temp_directory_path() / ("sweep_cli_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write_results_jsonl(dir / "results.jsonl", endpoints, records);
  const auto matrix = to_matrix(records, endpoints.size());
  const auto verdict = sweep::judge(matrix, endpoints, write_bandwidth_figure(), {});
  write_report_md(dir / "report.md", endpoints, matrix, verdict);

  std::istringstream lines(read_all(dir / "results.jsonl"));
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const auto a = nlohmann::json::parse(first), b = nlohmann::json::parse(second);
  CHECK(a.at("round") == 1);  // written in round order
  CHECK(a.at("client").at("host") == "a");
  CHECK(a.at("bw_avg_gbits") == 95.5);
  CHECK(b.at("client").at("rank") == 1);
  CHECK(b.at("error") == "connect timed out");
  CHECK_FALSE(b.contains("bw_avg_gbits"));

  const auto report = read_all(dir / "report.md");
  CHECK_THAT(report, Catch::Contains("| rank 0 | - | 95.50 |"));
  CHECK_THAT(report, Catch::Contains("| rank 1 | failed | - |"));
  CHECK_THAT(report, Catch::Contains("connect timed out"));
  CHECK_THAT(report, Catch::Contains("2 pairs judged"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("rdma_sweep results: an unwritable file is named", "[unit][sweep]") {
  CHECK_THROWS_WITH(write_results_jsonl("/nonexistent-dir/results.jsonl", {}, {}),
                    Catch::Contains("cannot write '/nonexistent-dir/results.jsonl'"));
}
