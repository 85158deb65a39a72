// results.jsonl's lines (lib/sweep/record.cpp): a record through JSON and
// back with its empty fields left out, and bad lines named by line and field.

#include "catch2_compat.hpp"

#include <set>
#include <sstream>
#include <string>

#include "rdmabench/report/figure_names.hpp"
#include "rdmabench/sweep/record.hpp"
#include "rdmabench/verbs/error.hpp"
#include "schema_samples.hpp"
#include "test_helpers.hpp"

using namespace rdmabench::sweep;
using rdmabench::test::MessageContains;

namespace {

SweepRecord full_record() {
  SweepRecord r;
  r.test = "write_lat";
  r.pattern = "pairwise";
  r.pass = SweepPass::retest;
  r.round = 4;
  r.client = {{2, "host-c", "mlx5_1", 1}, 1, "10.0.0.3", "fe80::1", 200.0, "InfiniBand", "28.39.1002", 1,
              "cuda:0", "PIX", "44.0", "6.1.0-18-amd64", 64};
  r.server.endpoint = {5, "host-f", "mlx5_1", 1};
  r.size_bytes = 64;
  r.figures.lat_p99_us = 2.875;
  r.figures.lat_max_us = 11.5;
  r.figures.lat_samples = 300;
  r.seconds = 1.25;
  r.started_utc = "2026-11-30T09:00:03Z";
  r.run_id = "07b242d1478674";
  return r;
}

}  // namespace

TEST_CASE("a sweep record survives JSON and back", "[sweep]") {
  const SweepRecord r = full_record();
  const std::string line = to_json_line(r);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("\"error\"") == std::string::npos);        // empty: left out
  CHECK(line.find("\"bw_average_Gbps\"") == std::string::npos);  // absent: left out
  CHECK(line.find("\"pass\":\"retest\"") != std::string::npos);
  const SweepRecord back = from_json_line(line);
  CHECK(back.test == "write_lat");
  CHECK(back.pattern == "pairwise");
  CHECK(back.pass == SweepPass::retest);
  CHECK(back.round == 4);
  CHECK(back.client.endpoint.rank == 2);
  CHECK(back.client.endpoint.rail == 1);
  CHECK(back.client.address == "10.0.0.3");
  CHECK(back.client.port_rate_Gbps == 200.0);
  CHECK(back.client.numa_node == 1);
  CHECK(back.client.gpu_relationship == "PIX");
  CHECK(back.client.kernel == "6.1.0-18-amd64");
  CHECK(back.client.host_cpus == 64);
  CHECK(back.server.endpoint.host == "host-f");
  CHECK_FALSE(back.server.port_rate_Gbps);
  CHECK(back.server.firmware.empty());
  CHECK(back.size_bytes == 64);
  CHECK(back.figures.lat_p99_us == 2.875);
  CHECK(back.figures.lat_max_us == 11.5);
  CHECK(back.figures.lat_samples == 300u);
  CHECK_FALSE(back.figures.lat_mean_us);
  CHECK(back.measured());
  CHECK(back.seconds == 1.25);
  CHECK(back.started_utc == r.started_utc);
  CHECK(back.run_id == r.run_id);
  CHECK_THAT(line, Catch::Contains(R"("schema_version":2)") && Catch::Contains(R"("host":"host-c","pass")"));
  CHECK(to_json_line(back) == line);
}

TEST_CASE("a sweep record names its figures as the pair CSV does", "[sweep][vocabulary]") {
  namespace names = rdmabench::figure_names;
  std::set<std::string> pair_names{names::flat(names::kLatencyPrefix, names::kLatencySamples)};
  for (const auto& figure : names::kLatencyFigures) pair_names.insert(names::flat(names::kLatencyPrefix, figure.name));
  for (const char* name : {names::kPeakMBps, names::kPeakGbps, names::kAverageMBps, names::kAverageGbps,
                           names::kMessageRateMpps})
    pair_names.insert(names::flat(names::kBandwidthPrefix, name));
  for (const FigureField& field : figure_fields()) {
    INFO(field.key);
    CHECK(pair_names.count(std::string(field.key)) == 1);
  }
}

TEST_CASE("a results.jsonl from before the figures' rename is refused, naming what to do", "[sweep]") {
  std::string old = to_json_line(full_record());
  old.erase(old.find(R"("schema_version":2,)"), std::string(R"("schema_version":2,)").size());
  REQUIRE_THROWS_MATCHES(from_json_line(old), rdmabench::Error,
                         MessageContains("no schema_version: written by an rdma_sweep before the figures' rename"));
  REQUIRE_THROWS_MATCHES(from_json_line(old), rdmabench::Error, MessageContains("start a fresh --out folder"));
  std::string newer = to_json_line(full_record());
  newer.replace(newer.find(R"("schema_version":2)"), std::string(R"("schema_version":2)").size(),
                R"("schema_version":3)");
  REQUIRE_THROWS_MATCHES(from_json_line(newer), rdmabench::Error,
                         MessageContains("schema_version 3 is not this rdma_sweep's (2)"));
}

TEST_CASE("a bad results.jsonl line is named with its field", "[sweep]") {
  std::string good = to_json_line(full_record());
  std::istringstream missing(good + "\n\n" + R"({"schema_version":2,"test":"write_bw","pass":"sweep","round":0,"client":{"rank":1,"host":"a","device":"d"},"server":{"host":"b","device":"d"}})");
  REQUIRE_THROWS_MATCHES(read_records(missing), rdmabench::Error,
                         MessageContains("results.jsonl line 3: sweep record: field 'server.rank' is missing"));
  const std::string wrong_type = R"({"schema_version":2,"test":"write_bw","pass":"sweep","round":"two"})";
  REQUIRE_THROWS_MATCHES(from_json_line(wrong_type), rdmabench::Error,
                         MessageContains("field 'round' should be a whole number, 0 or more, not \"two\""));
  const std::string wrong_pass = R"({"schema_version":2,"test":"write_bw","pass":"again","round":0})";
  REQUIRE_THROWS_MATCHES(from_json_line(wrong_pass), rdmabench::Error, MessageContains("field 'pass' is 'again'"));
  std::string bad_figure = good;
  bad_figure.replace(bad_figure.find("2.875"), 5, "\"fast\"");
  REQUIRE_THROWS_MATCHES(from_json_line(bad_figure), rdmabench::Error,
                         MessageContains("field 'figures.lat_p99_us' should be a number"));
  REQUIRE_THROWS_MATCHES(from_json_line("{\"test\":"), rdmabench::Error, MessageContains("not JSON"));
  // A rank too large for its field is refused, not read back as its low bits (rank 0).
  for (const char* rank : {"4294967296", "18446744073709551615", "-2147483649"}) {
    std::string huge = good;
    const auto at = huge.find("\"rank\":") + 7;
    huge.replace(at, huge.find_first_of(",}", at) - at, rank);
    INFO(huge);
    REQUIRE_THROWS_MATCHES(from_json_line(huge), rdmabench::Error,
                           MessageContains("rank' should be an integer between -2147483648 and 2147483647"));
  }
}

TEST_CASE("a results.jsonl whose last line was cut short keeps its good records for --resume", "[sweep]") {
  const std::string good = to_json_line(full_record());
  const std::string torn = good.substr(0, good.size() / 2);
  std::istringstream cut(good + "\n" + good + "\n" + torn);
  std::size_t dropped = 99;
  CHECK(read_records(cut, &dropped).size() == 2);
  CHECK(dropped == torn.size());
  std::istringstream clean(good + "\n\n");
  CHECK(read_records(clean, &dropped).size() == 1);
  CHECK(dropped == 0);
  // A bad line before the last is an error even so; without the count the
  // torn last line is one too.
  std::istringstream middle(good + "\n" + torn + "\n" + good + "\n");
  REQUIRE_THROWS_MATCHES(read_records(middle, &dropped), rdmabench::Error, MessageContains("results.jsonl line 2"));
  std::istringstream strict(good + "\n" + torn);
  REQUIRE_THROWS_MATCHES(read_records(strict), rdmabench::Error, MessageContains("results.jsonl line 2"));
}

namespace {

/// Both ends' counters as a pair over rxe gives them: the client's own, the
/// server's as its rank reported them.
SweepRecord record_with_counters() {
  SweepRecord r = full_record();
  rdmabench::CounterDeltas client;
  client.source = "rxe0 port 1 hw_counters";
  client.counters_read = 14;
  client.moved = {{"sent_pkts", 154000}, {"rcvd_seq_err", 12}};
  rdmabench::CounterDeltas server = client;
  server.source = "rxe1 port 1 hw_counters";
  server.moved = {{"rcvd_pkts", 154000}, {"out_of_seq_request", 600}};
  server.went_backwards = {"ack_deferred"};
  r.counters = {client, server};
  return r;
}

}  // namespace

TEST_CASE("a sweep record keeps both ends' counters through JSON and back", "[sweep]") {
  const SweepRecord r = record_with_counters();
  const std::string line = to_json_line(r);
  CHECK_THAT(line, Catch::Contains(R"("counters":{"client":{"host_wide":false,"moved":{"rcvd_seq_err":12,"sent_pkts":154000},"read":14,"source":"rxe0 port 1 hw_counters","went_backwards":[]})"));
  const SweepRecord back = from_json_line(line);
  REQUIRE(back.counters.client);
  REQUIRE(back.counters.server);
  CHECK(back.counters.client->moved == r.counters.client->moved);
  CHECK(back.counters.client->counters_read == 14);
  CHECK(back.counters.server->source == "rxe1 port 1 hw_counters");
  CHECK(back.counters.server->moved.at("out_of_seq_request") == 600);
  CHECK(back.counters.server->went_backwards == std::vector<std::string>{"ack_deferred"});
  CHECK_FALSE(back.counters.server->host_wide);
  CHECK(to_json_line(back) == line);
  // One end's alone, as the server's rank sends it to rank 0.
  const auto server = counter_deltas_from_json_text(to_json_text(*r.counters.server));
  CHECK(server.moved == r.counters.server->moved);
  // A record without counters (an older sweep's) reads back without them.
  CHECK_FALSE(from_json_line(to_json_line(full_record())).counters.client);
  CHECK_THROWS_MATCHES(counter_deltas_from_json_text(R"({"moved":{"rcvd_seq_err":-3}})"), rdmabench::Error,
                       MessageContains("field 'counters.moved.rcvd_seq_err' should be a whole number"));
}

TEST_CASE("sweep records, a measured and a failed one, for the schema check", "[.schema-samples]") {
  auto out = rdmabench::test::schema_sample_file("sweep.jsonl");
  SweepRecord failed = full_record();
  failed.test = "write_bw";
  failed.pass = SweepPass::sweep;
  failed.figures = {};
  failed.error = "the server's rank stopped answering";
  failed.run_id.clear();  // never connected: no run, so no id (pair_run.cpp)
  out << to_json_line(full_record()) << '\n' << to_json_line(failed) << '\n'
      << to_json_line(record_with_counters()) << '\n';
  CHECK(out.good());
}
