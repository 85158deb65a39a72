// rdma_sweep's MPI-free parts (bench/sweep): its options and what they hand
// to each test's own parser, devices and rails per local rank, rank 0's
// orders and what --resume skips, rdma_cm ports, and what each test is
// judged on.

#include "catch2_compat.hpp"
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/options.hpp"
#include "sweep/out_folder.hpp"
#include "sweep/endpoint_context.hpp"
#include "sweep/judging.hpp"
#include "sweep/round_order.hpp"
#include "sweep/round_report.hpp"
#include "sweep/sweep_options.hpp"

using namespace rdmabench;
using namespace rdmabench::sweep_cli;

namespace {

SweepOptions parse(std::vector<std::string> extra) {
  std::vector<std::string> args{"-d", "mlx5_0", "--out", "results"};
  args.insert(args.end(), extra.begin(), extra.end());
  return parse_sweep_options(args);
}

sweep::SweepRecord record(std::string test, int client, int server, std::optional<double> value) {
  sweep::SweepRecord r;
  r.test = std::move(test);
  r.client.endpoint = {client, "h" + std::to_string(client), "mlx5_0", 0};
  r.server.endpoint = {server, "h" + std::to_string(server), "mlx5_0", 0};
  if (!value) r.error = "connect timed out";
  else if (r.test.ends_with("_bw")) r.figures.bw_average_Gbps = value;
  else r.figures.lat_p99_us = value;
  return r;
}

}  // namespace

TEST_CASE("rdma_sweep options: its own, and the pair options handed on as given", "[unit][sweep]") {
  const auto o = parse({"--test", "write_bw,rdma_write_lat", "-s", "4K", "-n", "200", "--timeout", "3",
                        "--skip-same-host", "-t", "2", "--min-gbps", "90", "--pattern", "incast", "--root", "3"});
  CHECK(o.device.devices == std::vector<std::string>{"mlx5_0"});
  CHECK(o.out_dir == "results");
  CHECK_FALSE(o.resume);
  CHECK(o.tests == std::vector<std::string>{"write_bw", "write_lat"});
  CHECK(o.pair_args == std::vector<std::string>{"-s", "4K", "-n", "200", "-t", "2"});
  CHECK(pair_arguments(o, "mlx5_1") ==
        std::vector<std::string>{"-s", "4K", "-n", "200", "-t", "2", "-d", "mlx5_1", "--timeout", "3"});
  CHECK(o.timeout_s == 3);
  CHECK(o.schedule.pairing.skip_same_host);
  CHECK(o.schedule.pattern == sweep::Pattern::incast);
  CHECK(o.schedule.root_rank == 3);
  CHECK(o.limits.min_gbps == 90);
  CHECK(o.retest);
}

TEST_CASE("rdma_sweep options: mistakes are named with what would be right", "[unit][sweep]") {
  CHECK_THROWS_WITH(parse({"--pattern", "star"}), Catch::Contains("star") && Catch::Contains("pairwise"));
  CHECK_THROWS_WITH(parse({"--test", "write_bandwidth"}), Catch::Contains("unknown test 'write_bandwidth'"));
  CHECK_THROWS_WITH(parse({"--min-line-rate", "1.5"}), Catch::Contains("--min-line-rate 1.5 is out of range"));
  CHECK_THROWS_WITH(parse({"--json", "x.json"}), Catch::Contains("--json is not an rdma_sweep option"));
  CHECK_THROWS_WITH(parse({"10.0.0.1"}), Catch::Contains("takes no server address"));
  // Each test's own parser checks the pair options, naming the test.
  CHECK_THROWS_WITH(parse({"--test", "write_bw,write_lat", "-q", "2"}),
                    Catch::Contains("--test write_lat: -q/--qp applies to bandwidth tests"));
  CHECK_THROWS_WITH(parse({"-s", "99G"}), Catch::Contains("--test write_bw"));
  CHECK_THROWS_WITH(parse({"-a"}), Catch::Contains("one size per test"));
  CHECK_THROWS_WITH(parse({"--devices", "a,b"}), Catch::Contains("-d or --devices, not both"));
  CHECK_THROWS_WITH(parse_sweep_options({"-d", "x"}), Catch::Contains("--out DIR is required"));
  CHECK_THROWS_WITH(parse_sweep_options({"--out", "x"}), Catch::Contains("no device"));
  CHECK_THROWS_WITH(parse({"--resume", "other"}), Catch::Contains("name different folders"));
  const auto resumed = parse_sweep_options({"-d", "x", "--resume", "old"});
  CHECK(resumed.resume);
  CHECK(resumed.out_dir == "old");
}

TEST_CASE("rdma_sweep --max-counter: repeatable and comma lists, over the defaults", "[unit][sweep]") {
  const auto find = [](const SweepOptions& o, const std::string& name) -> const sweep::CounterLimit* {
    for (const auto& l : o.counter_limits)
      if (l.counter == name) return &l;
    return nullptr;
  };
  const auto defaults = parse({});
  REQUIRE(find(defaults, "rcvd_seq_err"));
  CHECK(find(defaults, "rcvd_seq_err")->per_million_packets);
  const auto o = parse({"--max-counter", "rcvd_seq_err=5ppm,link_downed=off", "--max-counter", "tcp_RetransSegs=50"});
  CHECK(find(o, "rcvd_seq_err")->limit == 5);
  CHECK_FALSE(find(o, "link_downed"));
  REQUIRE(find(o, "tcp_RetransSegs"));
  CHECK_FALSE(find(o, "tcp_RetransSegs")->per_million_packets);
  CHECK(o.counter_limits.size() == defaults.counter_limits.size());
  CHECK_THROWS_AS(parse({"--max-counter", "rcvd_seq_err"}), rdmabench::cli::UsageError);
  CHECK_THROWS_WITH(parse({"--max-counter", "rcvd_seq_err=many"}),
                    Catch::Contains("--max-counter rcvd_seq_err=many: 'many' for rcvd_seq_err is not a limit") &&
                        Catch::Contains("NAME=Nppm"));
}

TEST_CASE("rdma_sweep round reports: the server's counters reach the client's record at rank 0", "[unit][sweep]") {
  MyPairs client_rank;  // rank 1, client of 1 -> 2
  client_rank.records.push_back(record("write_bw", 1, 2, 9.5));
  MyPairs server_rank;  // rank 2, server of 1 -> 2
  CounterDeltas served;
  served.source = "rxe0 port 1 hw_counters";
  served.moved = {{"out_of_seq_request", 600}};
  server_rank.served.push_back({1, 2, served});
  std::uint32_t epoch = 0;
  MyPairs gathered = decode_done(encode_done(7, client_rank), 1, epoch);
  CHECK(epoch == 7);
  const MyPairs from_server = decode_done(encode_done(7, server_rank), 2, epoch);
  REQUIRE(from_server.served.size() == 1);
  join_server_counters(gathered.records, from_server.served);
  REQUIRE(gathered.records.size() == 1);
  REQUIRE(gathered.records[0].counters.server);
  CHECK(gathered.records[0].counters.server->moved.at("out_of_seq_request") == 600);
  CHECK_FALSE(gathered.records[0].counters.client);
  // A rank reports only its own: counters of a pair it did not serve are refused.
  CHECK_THROWS_WITH(decode_done(encode_done(7, server_rank), 3, epoch), Catch::Contains("another rank served"));
}

TEST_CASE("rdma_sweep devices: one for all, or one per local rank on its rail", "[unit][sweep]") {
  DeviceChoice one{{"rxe0"}, false, {}};
  CHECK(device_for_local_rank(one, 3, {}) == "rxe0");
  CHECK(rail_for_local_rank(one, 3) == 0);
  DeviceChoice listed{{"mlx5_0", "mlx5_1"}, false, {}};
  CHECK(device_for_local_rank(listed, 1, {}) == "mlx5_1");
  CHECK(rail_for_local_rank(listed, 1) == 1);
  CHECK_THROWS_WITH(device_for_local_rank(listed, 2, {}),
                    Catch::Contains("local rank 2 has no device") && Catch::Contains("ppr:2:node"));
  DeviceChoice host_order{{}, true, {}};
  CHECK(device_for_local_rank(host_order, 1, {"mlx5_0", "mlx5_1"}) == "mlx5_1");
}

TEST_CASE("rdma_sweep orders: round trip, and a bad one is refused", "[unit][sweep]") {
  RoundOrder order{7, "write_lat", sweep::SweepPass::retest, 1, 3, {{0, 2}, {3, 1}}};
  const auto back = decode_order(encode_order(order), 4);
  CHECK(back.epoch == 7);
  CHECK(back.test == "write_lat");
  CHECK(back.pass == sweep::SweepPass::retest);
  CHECK(back.round == 1);
  CHECK(back.rounds == 3);
  CHECK(back.pairs == order.pairs);
  CHECK_THROWS_WITH(decode_order(encode_order(order), 3), Catch::Contains("not two of the 3 ranks"));
  CHECK_THROWS_WITH(decode_order("{\"epoch\":1}", 3), Catch::Contains("does not parse"));
}

TEST_CASE("rdma_sweep plan: tests in turn, --resume skips what was measured", "[unit][sweep]") {
  const sweep::Schedule schedule{{{0, 1}, {2, 3}}, {{1, 0}, {3, 2}}};
  const std::vector<std::string> tests{"write_bw", "write_lat"};
  const std::vector<sweep::SweepRecord> earlier{record("write_bw", 0, 1, 10.0), record("write_bw", 2, 3, 9.0),
                                                record("write_bw", 1, 0, std::nullopt)};
  const auto orders = plan_sweep(tests, schedule, measured_pairs(earlier), 0);
  REQUIRE(orders.size() == 3);  // write_bw's first round is all done
  CHECK(orders[0].test == "write_bw");
  // 1 -> 0 failed before: it is tried again.
  CHECK(orders[0].pairs == std::vector<sweep::DirectedPair>{{1, 0}, {3, 2}});
  CHECK(orders[0].rounds == 1);
  CHECK(orders[1].test == "write_lat");
  CHECK(orders[2].epoch == 2);
  const std::vector<sweep::DirectedPair> retest{{0, 1}, {1, 2}, {2, 3}};
  const auto again = plan_retest("write_bw", retest, 5);
  REQUIRE(again.size() == 2);
  CHECK(again[1].epoch == 6);
  CHECK(again[0].pass == sweep::SweepPass::retest);
}

TEST_CASE("rdma_sweep plan: latency pairs one at a time where a host's ranks outnumber its CPUs", "[unit][sweep]") {
  std::vector<sweep::EndpointContext> everyone(4);
  for (int r = 0; r < 4; ++r) everyone[r].endpoint = {r, r < 2 ? "big" : "lab", "rxe0", 0};
  everyone[0].host_cpus = everyone[1].host_cpus = 64;
  CHECK_FALSE(crowded_host(everyone));  // lab's CPUs unknown: nothing is assumed
  everyone[2].host_cpus = everyone[3].host_cpus = 2;
  CHECK_FALSE(crowded_host(everyone));  // 2 ranks, 2 CPUs
  everyone.push_back(everyone[3]);
  everyone.back().endpoint.rank = 4;
  CHECK(crowded_host(everyone) == "lab has 3 ranks and 2 CPUs");

  const sweep::Schedule schedule{{{0, 1}, {2, 3}}, {{1, 0}, {3, 2}}};
  const std::vector<std::string> tests{"write_bw", "write_lat"};
  const auto orders = one_pair_per_round(plan_sweep(tests, schedule, {}, 0), {"write_lat"}, 7);
  REQUIRE(orders.size() == 2 + 4);  // write_bw's rounds as they were, write_lat's pairs alone
  CHECK(orders[1].pairs == std::vector<sweep::DirectedPair>{{1, 0}, {3, 2}});
  CHECK(orders[1].round == 1);
  CHECK(orders[1].rounds == 2);
  for (std::size_t i = 2; i < orders.size(); ++i) {
    CHECK(orders[i].test == "write_lat");
    CHECK(orders[i].pairs.size() == 1);
    CHECK(orders[i].round == i - 2);
    CHECK(orders[i].rounds == 4);
  }
  CHECK(orders[3].pairs.front() == sweep::DirectedPair{2, 3});
  for (std::size_t i = 0; i < orders.size(); ++i) CHECK(orders[i].epoch == 7 + i);
}

TEST_CASE("rdma_sweep ports: each server of a round its own, within 65535", "[unit][sweep]") {
  const RoundOrder incast{0, "write_bw", sweep::SweepPass::sweep, 0, 1, {{1, 0}, {2, 0}, {3, 0}}};
  CHECK(server_port(incast, 0, 18515, 4) == 18515);
  CHECK(server_port(incast, 2, 18515, 4) == 18515 + 2 * (0 + 2 * 4));
  const RoundOrder pairs{0, "write_bw", sweep::SweepPass::sweep, 0, 1, {{0, 1}, {2, 3}}};
  CHECK(server_port(pairs, 1, 18515, 4) == 18515 + 2 * 3);
  const RoundOrder crowded{0, "write_bw", sweep::SweepPass::sweep, 0, 1, {{1, 0}, {2, 0}}};
  CHECK_THROWS_WITH(server_port(crowded, 1, 60000, 4000), Catch::Contains("beyond 65535"));
}

TEST_CASE("rdma_sweep limits: bandwidth and p99 tests, each with its own", "[unit][sweep]") {
  SweepLimits limits;
  limits.min_gbps = 50;
  limits.min_line_rate = 0.9;
  limits.max_p99_us = 20;
  const auto bw = thresholds_for("write_bw", limits, 100.0);
  CHECK(bw.absolute == 50);
  CHECK(bw.min_share_of_line_rate == 0.9);
  CHECK(bw.port_rate == 100);
  CHECK(bw.min_share_of_median == 0.5);
  CHECK_FALSE(bw.max_multiple_of_best);
  const auto lat = thresholds_for("read_lat", limits, 100.0);
  CHECK(lat.absolute == 20);
  CHECK(lat.max_multiple_of_best == 5);
}

TEST_CASE("rdma_sweep re-test plan: the report's verdict, a slow node's pairs re-tested", "[unit][sweep]") {
  std::vector<sweep::Endpoint> endpoints;
  std::vector<sweep::EndpointContext> contexts;
  for (int r = 0; r < 4; ++r) {
    endpoints.push_back({r, "h" + std::to_string(r), "mlx5_0", 0});
    contexts.emplace_back().endpoint = endpoints.back();
  }
  std::vector<sweep::SweepRecord> records;
  for (int c = 0; c < 4; ++c)
    for (int s = 0; s < 4; ++s)
      if (c != s) records.push_back(record("write_bw", c, s, c == 2 || s == 2 ? 10.0 : 95.0));
  SweepOptions options;
  options.tests = {"write_bw"};
  const auto verdicts = sweep::judge_records(records, endpoints, report_options(options, contexts, {}));
  REQUIRE(verdicts.size() == 1);
  const auto& verdict = verdicts[0].verdict;
  CHECK(verdict.pairs_judged == 12);
  REQUIRE(verdict.suspects.size() == 1);
  CHECK(verdict.suspects[0].kind == sweep::SuspectKind::node);
  CHECK(verdict.suspects[0].endpoints == std::vector<sweep::EndpointIndex>{2});
  CHECK_FALSE(verdict.retest.empty());
  for (const auto& pair : verdict.retest) CHECK((pair.client == 2 || pair.server == 2));
}

TEST_CASE("rdma_sweep contexts: the GPU's relation to the NIC, as far as known", "[unit][sweep]") {
  CHECK(gpu_relation_of(parse_memory_choice("host"), "mlx5_0").empty());
  CHECK_THAT(gpu_relation_of(parse_memory_choice("cuda:1"), "mlx5_0"), Catch::Contains("CUDA device 1"));
  CHECK_THAT(gpu_relation_of(parse_memory_choice("rocm:2"), "mlx5_0"), Catch::Contains("ROCm device 2"));
  auto by_address = parse_memory_choice("cuda");
  by_address.cuda_bus_id = "0000:ff:1f.7";
  CHECK_THAT(gpu_relation_of(by_address, "mlx5_0"), Catch::Contains("0000:ff:1f.7 is not in sysfs"));
}

TEST_CASE("rdma_sweep --baseline: an earlier folder and its thresholds, never the sweep's own", "[unit][sweep]") {
  const auto o = parse({"--baseline", "before", "--baseline-threshold", "bw=10%"});
  CHECK(o.baseline_dir == "before");
  CHECK(o.baseline_thresholds.for_figure(compare::describe_figure("bw_average_Gbps")) == Approx(0.1));
  CHECK(o.baseline_thresholds.for_figure(compare::describe_figure("lat_p99_us")) == Approx(0.1));
  CHECK(parse({}).baseline_dir.empty());
  CHECK_THROWS_WITH(parse({"--baseline-threshold", "bw=10%"}), Catch::Contains("--baseline-threshold needs --baseline"));
  CHECK_THROWS_WITH(parse({"--baseline", "before", "--baseline-threshold", "bw=10"}),
                    Catch::Contains("--baseline-threshold: --threshold bw=10: '10' is no percentage"));
  const auto here = std::filesystem::temp_directory_path();
  CHECK_THROWS_WITH(parse_sweep_options({"-d", "mlx5_0", "--out", here.string(), "--baseline", here.string()}),
                    Catch::Contains("is this sweep's own folder"));
}

TEST_CASE("rdma_sweep --baseline: a folder with no sweep in it is named", "[unit][sweep]") {
  const auto empty = std::filesystem::temp_directory_path() / ("rdmabench-no-baseline-" + std::to_string(::getpid()));
  std::filesystem::create_directories(empty);
  CHECK_THROWS_WITH(read_baseline_records(empty), Catch::Contains("--baseline " + empty.string() + ": cannot read"));
  { std::ofstream(empty / "results.jsonl") << "\n"; }
  CHECK_THROWS_WITH(read_baseline_records(empty), Catch::Contains("holds no record"));
  std::filesystem::remove_all(empty);
}
