// Server/client pairs of both binaries on RoCEv2 (TCP exchange and rdma_cm)
// and iWARP; the JSON must agree with the table, and the dumped samples must
// reproduce the printed statistics.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "csv_cells.hpp"
#include "lab.hpp"
#include "rdmabench/stats/stats.hpp"

using namespace lab;

namespace {

/// The table prints two decimals; the JSON keeps full precision.
void check_close(double table, double json) { CHECK(std::abs(table - json) <= 0.006); }

void check_latency_table_matches_json(const std::string& table, const nlohmann::json& j) {
  const auto rows = table_rows(table);
  REQUIRE(rows.size() == 1);
  const auto& row = rows[0];  // bytes iters min max typical avg stdev p99 p99.9 p90 p99.99 warmup
  REQUIRE(row.size() == 12);
  const auto& l = j.at("latency");
  CHECK(row[0] == j.at("bytes").get<double>());
  CHECK(row[1] == l.at("samples").get<double>());
  check_close(row[2], l.at("min_us"));
  check_close(row[3], l.at("max_us"));
  check_close(row[4], l.at("median_us"));
  check_close(row[5], l.at("mean_us"));
  check_close(row[6], l.at("stdev_us"));
  check_close(row[7], l.at("p99_us"));
  check_close(row[8], l.at("p99_9_us"));
  check_close(row[9], l.at("p90_us"));
  check_close(row[10], l.at("p99_99_us"));
  CHECK(row[11] == j.at("warmup_iterations").get<double>());
}

/// Parses --dump-samples output: '#' comment lines, then one value a line.
std::vector<double> read_samples(const std::string& path) {
  std::vector<double> samples;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') samples.push_back(std::stod(line));
  return samples;
}

/// `binary` is rdma_write_lat or rdma_send_lat (one-way, both sides measure)
/// or rdma_read_lat (round trip, the server is passive).
void latency_pair(const std::string& binary, const Device& d, const Args& extra,
                  const std::string& connection) {
  const bool round_trip = binary == "rdma_read_lat" || binary == "rdma_atomic_lat";
  TempDir tmp;
  const auto dump = (tmp.path / "samples.txt").string();
  auto [p, j] = run_pair_json(binary, d, extra, {"-n", "500", "--dump-samples", dump});
  INFO(p.client->describe());
  CHECK(j.at("context").at("device") == d.name);
  CHECK(j.at("context").at("transport") == d.kind);
  CHECK(j.at("context").at("connection") == connection);
  CHECK(j.at("iterations") == 500);
  CHECK(j.at("latency").at("samples") == 500);
  CHECK(j.at("latency").at("min_us").get<double>() > 0);
  CHECK(j.at("latency").at("kind") == (binary == "rdma_read_lat"     ? "round trip (one read)"
                                       : binary == "rdma_atomic_lat" ? "round trip (one atomic)"
                                                                     : "one-way (round trip / 2)"));
  check_latency_table_matches_json(p.client->out(), j);

  // Anyone can recompute the statistics from the dump (6 decimals kept).
  const auto samples = read_samples(dump);
  REQUIRE(samples.size() == 500);
  const auto s = rdmabench::summarize_latency(samples);
  const auto& l = j.at("latency");
  CHECK(std::abs(s.median - l.at("median_us").get<double>()) < 1e-5);
  CHECK(std::abs(s.p99 - l.at("p99_us").get<double>()) < 1e-5);
  CHECK(std::abs(s.p99_9 - l.at("p99_9_us").get<double>()) < 1e-5);
  CHECK(std::abs(s.max - l.at("max_us").get<double>()) < 1e-5);
  CHECK(std::abs(s.mean - l.at("mean_us").get<double>()) < 1e-5);

  if (round_trip) {
    // The server's CPU takes no part in a read or atomic; it says so instead of guessing.
    CHECK_THAT(p.server->out(), Catch::Contains("(measured by the peer)"));
  } else {
    // The server measured too: its table has one row of 499 round trips.
    const auto server_rows = table_rows(p.server->out());
    REQUIRE(server_rows.size() == 1);
    CHECK(server_rows[0][1] == 499);
  }
}

/// `repeats` > 1: the client asks for --repeat, and both sides' records
/// must carry repeat 1..N of one run_id, with a table row per repeat.
void bandwidth_pair(const std::string& binary, const Device& d, const Args& extra,
                    const std::string& connection, int repeats = 1) {
  const bool atomic = binary == "rdma_atomic_bw";
  const double bytes = atomic ? 8 : 65536;
  TempDir tmp;
  const auto client_json = (tmp.path / "client.json").string();
  const auto server_json = (tmp.path / "server.json").string();
  Args server{"-d", d.name, "--json", server_json}, client{"-d", d.name, "--json", client_json, "-n", "2000"};
  server.insert(server.end(), extra.begin(), extra.end());
  client.insert(client.end(), extra.begin(), extra.end());
  if (repeats > 1) client.insert(client.end(), {"--repeat", std::to_string(repeats)});
  auto p = run_pair_ok(binary, server, d.address, client);
  INFO(p.client->describe());
  const auto client_lines = read_json_lines(client_json);
  const auto server_lines = read_json_lines(server_json);
  REQUIRE(client_lines.size() == static_cast<std::size_t>(repeats));
  REQUIRE(server_lines.size() == static_cast<std::size_t>(repeats));
  for (int k = 0; k < repeats; ++k)
    for (const auto* line : {&client_lines[k], &server_lines[k]}) {
      INFO("record " << k << ": " << line->dump());
      CHECK(line->at("repeat") == k + 1);
      CHECK(line->at("repeats") == repeats);
      CHECK(line->at("run_id") == client_lines[0].at("run_id"));
    }
  const auto client_rows = table_rows(p.client->out());
  REQUIRE(client_rows.size() == static_cast<std::size_t>(repeats));
  if (repeats > 1) CHECK_THAT(p.client->out(), Catch::Contains(fmt::format("repeat {} of {}", repeats, repeats)));
  const auto& j = client_lines.back();
  const auto rows = std::vector<std::vector<double>>{client_rows.back()};
  CHECK(j.at("context").at("transport") == d.kind);
  CHECK(j.at("context").at("connection") == connection);
  const auto& b = j.at("bandwidth");
  const double average = b.at("average_MBps");
  CHECK(average > 0);
  CHECK(b.at("peak_MBps").get<double>() >= average);
  // Average bandwidth is bytes x iterations / seconds, and the rate agrees.
  CHECK(std::abs(average - bytes * 2000 / b.at("seconds").get<double>() / 1e6) < 1e-6 * average);
  CHECK(std::abs(b.at("message_rate_Mpps").get<double>() * bytes - average) < 1e-6 * average);

  // bytes iterations peak average msgrate warmup: the last repeat's row
  CHECK(rows[0][0] == bytes);
  CHECK(rows[0][1] == 2000);
  check_close(rows[0][2], b.at("peak_MBps"));
  check_close(rows[0][3], average);
  CHECK(std::abs(rows[0][4] - b.at("message_rate_Mpps").get<double>()) < 1e-6);
  CHECK(rows[0][0] == client_rows.front()[0]);  // each repeat the same size

  // The receiver of sends measures too (its CPU reaps every message); the
  // target of one-sided operations says it did not.
  const auto server_rows = table_rows(p.server->out());
  if (binary == "rdma_send_bw") {
    REQUIRE(server_rows.size() == static_cast<std::size_t>(repeats));
    CHECK(server_rows[0][3] > 0);
  } else {
    CHECK(server_rows.empty());
    CHECK_THAT(p.server->out(), Catch::Contains("(measured by the peer)"));
  }
}

}  // namespace

TEST_CASE("write_lat pair on RoCEv2 with the TCP exchange", "[lab][rxe]") {
  latency_pair("rdma_write_lat", roce(), {}, "out-of-band TCP");
}
TEST_CASE("write_lat pair on RoCEv2 with rdma_cm", "[sanitizer][lab][rxe]") {
  latency_pair("rdma_write_lat", roce(), {"-R"}, "rdma_cm");
}
TEST_CASE("write_lat pair on iWARP picks rdma_cm by itself", "[lab][siw]") {
  latency_pair("rdma_write_lat", iwarp(), {}, "rdma_cm");
}
TEST_CASE("write_bw pair on RoCEv2 with the TCP exchange", "[sanitizer][lab][rxe]") {
  bandwidth_pair("rdma_write_bw", roce(), {}, "out-of-band TCP");
}
TEST_CASE("write_bw pair on RoCEv2 with rdma_cm, --repeat 2", "[lab][rxe][repeat]") {
  bandwidth_pair("rdma_write_bw", roce(), {"-R"}, "rdma_cm", 2);
}
TEST_CASE("write_bw pair on iWARP picks rdma_cm by itself", "[lab][siw]") {
  bandwidth_pair("rdma_write_bw", iwarp(), {}, "rdma_cm");
}
TEST_CASE("read_lat pair on RoCEv2 with the TCP exchange", "[sanitizer][lab][rxe][read]") {
  latency_pair("rdma_read_lat", roce(), {}, "out-of-band TCP");
}
TEST_CASE("read_lat pair on iWARP", "[lab][siw][read]") {
  latency_pair("rdma_read_lat", iwarp(), {}, "rdma_cm");
}
TEST_CASE("read_bw pair on RoCEv2 with rdma_cm", "[lab][rxe][read]") {
  bandwidth_pair("rdma_read_bw", roce(), {"-R"}, "rdma_cm");
}
TEST_CASE("read_bw pair on iWARP", "[sanitizer][lab][siw][read]") {
  bandwidth_pair("rdma_read_bw", iwarp(), {}, "rdma_cm");
}

TEST_CASE("send_lat pair on RoCEv2 with the TCP exchange", "[lab][rxe][send]") {
  latency_pair("rdma_send_lat", roce(), {}, "out-of-band TCP");
}
TEST_CASE("send_lat pair on iWARP", "[sanitizer][lab][siw][send]") {
  latency_pair("rdma_send_lat", iwarp(), {}, "rdma_cm");
}
TEST_CASE("send_bw pair on RoCEv2 with rdma_cm", "[lab][rxe][send]") {
  bandwidth_pair("rdma_send_bw", roce(), {"-R"}, "rdma_cm");
}
TEST_CASE("send_bw pair on iWARP", "[lab][siw][send]") {
  bandwidth_pair("rdma_send_bw", iwarp(), {}, "rdma_cm");
}

TEST_CASE("atomic_lat pair on RoCEv2, fetch-and-add", "[lab][rxe][atomic]") {
  latency_pair("rdma_atomic_lat", roce(), {}, "out-of-band TCP");
}
TEST_CASE("atomic_lat pair on RoCEv2, compare-and-swap over rdma_cm", "[sanitizer][lab][rxe][atomic]") {
  latency_pair("rdma_atomic_lat", roce(), {"-A", "CMP_AND_SWAP", "-R"}, "rdma_cm");
}
TEST_CASE("atomic_bw pair on RoCEv2", "[sanitizer][lab][rxe][atomic]") {
  bandwidth_pair("rdma_atomic_bw", roce(), {}, "out-of-band TCP");
}

TEST_CASE("write_bw with post lists of 16, iterations not a multiple of 16", "[sanitizer][lab][rxe][post-list]") {
  // 100 warmup writes: the warmup ends on a short chain of 4.
  bandwidth_pair("rdma_write_bw", roce(), {"-l", "16", "--warmup", "100"}, "out-of-band TCP");
}
TEST_CASE("send_bw with post lists of 16 on iWARP", "[lab][siw][post-list]") {
  bandwidth_pair("rdma_send_bw", iwarp(), {"-l", "16", "-Q", "20"}, "rdma_cm");
}

TEST_CASE("iWARP says it switched to rdma_cm", "[lab][siw]") {
  const auto d = iwarp();
  auto p = run_pair_ok("rdma_write_lat", {"-d", d.name}, d.address, {"-d", d.name, "-n", "50"});
  CHECK_THAT(p.client->err(), Catch::Contains(d.name + " is iWARP: connecting with rdma_cm"));
  CHECK_THAT(p.server->err(), Catch::Contains(d.name + " is iWARP: connecting with rdma_cm"));
}

TEST_CASE("the GID is chosen automatically and printed", "[lab][rxe]") {
  const auto d = roce();
  auto p = run_pair_ok("rdma_write_lat", {"-d", d.name}, d.address, {"-d", d.name, "-n", "50"});
  CHECK_THAT(p.client->out(), Catch::Contains("RoCEv2 IPv4 GID"));
  CHECK_THAT(p.client->out(), Catch::Contains("::ffff:" + d.address));
}

TEST_CASE("cpu-util reports both sides, and a busy-polling client uses a core", "[lab][rxe][cpu]") {
  const auto d = roce();
  TempDir tmp;
  const auto json = (tmp.path / "cpu.json").string();
  auto p = run_pair_ok("rdma_write_bw", {"-d", d.name, "--cpu-util"}, d.address,
                       {"-d", d.name, "--cpu-util", "-n", "3000", "--json", json});
  INFO(p.client->describe());
  const auto lines = read_json_lines(json);
  REQUIRE(lines.size() == 1);
  const auto& cpu = lines[0].at("cpu");
  for (const char* side : {"client", "server"}) {
    INFO(side);
    const auto& s = cpu.at(side);
    CHECK(s.at("wall_s").get<double>() > 0);
    CHECK(s.at("process").at("cores").get<double>() >= 0);
    CHECK(s.at("process").at("cpu_s_per_GB").get<double>() >= 0);
    CHECK(s.at("machine").at("cores").get<double>() >= 0);
    CHECK(s.at("machine").at("cpus").get<int>() >= 1);
  }
  // The client spins on its completion queue for the whole run; the server
  // of a write test only waits on a socket.
  CHECK(cpu.at("client").at("process").at("cores").get<double>() > 0.5);
  CHECK(cpu.at("server").at("process").at("cores").get<double>() < 0.5);
  CHECK_THAT(p.client->out(), Catch::Contains("CPU client:") && Catch::Contains("CPU server:"));
}

TEST_CASE("cpu-util: an idle read_lat server spins on iWARP, unless told to sleep",
          "[lab][siw][rxe][cpu][read]") {
  TempDir tmp;
  // auto spins on iWARP, sleeps elsewhere; sleep is obeyed on iWARP.
  for (const auto& [device, wait, spins] :
       {std::tuple{iwarp(), "auto", true}, std::tuple{iwarp(), "sleep", false},
        std::tuple{roce(), "auto", false}}) {
    const auto& d = device;
    INFO(d.name << " --passive-wait " << wait);
    const auto json = (tmp.path / (d.name + wait + ".json")).string();
    auto p = run_pair_ok(
        "rdma_read_lat", {"-d", d.name}, d.address,
        // Process CPU comes in 10 ms ticks: 10000 reads (0.4-1 s) keep one
        // tick under 0.03 of a core, well inside the bounds below (2000 reads
        // on rxe0 once read one tick as 0.17).
        {"-d", d.name, "--cpu-util", "-n", "10000", "--passive-wait", wait, "--json", json});
    INFO(p.client->describe());
    const auto lines = read_json_lines(json);
    REQUIRE(lines.size() == 1);
    const double server_cores =
        lines[0].at("cpu").at("server").at("process").at("cores").get<double>();
    const auto said = lines[0].at("context").at("passive_wait").get<std::string>();
    if (spins) {
      // A SCHED_IDLE thread has what the spinning client and siw's kernel
      // threads leave of the guest's two CPUs: 0.4-0.6 of a core in the lab.
      CHECK(server_cores > 0.2);
      CHECK_THAT(said, Catch::Contains("spins at idle priority"));
      CHECK_THAT(p.server->out(), Catch::Contains("Server wait"));
    } else {
      // 0.00-0.04 in the lab; 0.15 once in a sanitizer build on a busy host,
      // whose starved guest CPU charges its ticks to whoever is current. A
      // spinning server shows 0.4-0.6.
      CHECK(server_cores < 0.2);
      CHECK_THAT(said, Catch::Contains("sleeps"));
    }
  }
}

TEST_CASE("output and csv give scripts bare numbers and rows", "[sanitizer][lab][rxe][script]") {
  const auto d = roce();
  TempDir tmp;
  const auto csv = (tmp.path / "lat.csv").string();
  auto p = run_pair_ok("rdma_write_lat", {"-d", d.name}, d.address,
                       {"-d", d.name, "-s", "2", "-n", "200", "--output", "latency", "--csv", csv});
  // stdout is the median alone; the human table went to stderr.
  const auto out = p.client->out();
  INFO(out);
  REQUIRE(!out.empty());
  CHECK(out.find('\n') == out.size() - 1);
  const double median = std::stod(out);
  CHECK(median > 0);
  CHECK_THAT(p.client->err(), Catch::Contains("t_typical[usec]"));
  std::istringstream rows(read_file(csv));
  std::string header, row;
  REQUIRE(std::getline(rows, header));
  REQUIRE(std::getline(rows, row));
  // Read by the header's names, as a script would (docs/json-output.md).
  const auto names = csv_cells(header), values = csv_cells(row);
  REQUIRE(names.size() == values.size());
  std::map<std::string, std::string> column;
  for (std::size_t i = 0; i < names.size(); ++i) column[names[i]] = values[i];
  CHECK(column["schema_version"] == "2");
  CHECK(column["run_id"].size() == 14);
  CHECK_THAT(column["started_utc"], Catch::EndsWith("Z"));
  CHECK(column["test"] == "write_lat");
  CHECK(column["role"] == "client");
  CHECK(column["device"] == d.name);
  CHECK(column["transport"] == "RoCEv2");
  CHECK(column["bytes"] == "2");
  CHECK(column["iterations"] == "200");
  CHECK(column["warmup_iterations"] == "100");
  CHECK(column["lat_samples"] == "200");
  CHECK(std::stod(column["lat_median_us"]) == Approx(median).epsilon(0.01));
  CHECK(column["bw_average_MBps"].empty());
}

TEST_CASE("mtu, inline size and traffic class reach the queue pair", "[sanitizer][lab][rxe][qp]") {
  const auto d = roce();
  const Args options{"-d", d.name, "-m", "512", "-I", "0", "--tclass", "32", "--sl", "1"};
  Args client = options;
  client.insert(client.end(), {"-n", "100"});
  auto p = run_pair_ok("rdma_write_lat", options, d.address, client);
  CHECK_THAT(p.client->out(), Catch::Contains("MTU             : 512 bytes"));
  CHECK_THAT(p.client->out(), Catch::Contains("max inline 0 bytes"));
}

TEST_CASE("an MTU above the port's active MTU is refused, naming both", "[sanitizer][lab][rxe][qp]") {
  const auto d = roce();
  Process server({bin("rdma_write_bw"), "-d", d.name, "-m", "4096", "-p", std::to_string(free_port_pair())});
  INFO(server.describe());
  REQUIRE(server.wait_for(std::chrono::seconds(30)) == 1);
  CHECK_THAT(server.err(), Catch::Contains("-m/--mtu 4096 exceeds the active MTU of " + d.name + " port 1"));
}

TEST_CASE("validate checks every byte of writes, reads and sends in a sweep", "[lab][validate]") {
  struct Case {
    const char* binary;
    Device device;
  };
  for (const auto& c : {Case{"rdma_write_lat", roce()}, Case{"rdma_write_bw", iwarp()},
                        Case{"rdma_read_bw", roce()}, Case{"rdma_read_lat", iwarp()},
                        Case{"rdma_send_bw", roce()}, Case{"rdma_send_lat", iwarp()}}) {
    INFO(c.binary << " on " << c.device.name);
    TempDir tmp;
    const auto json = (tmp.path / "v.json").string();
    // Sizes 2 B to 8 MiB: the pattern must survive every size, including
    // messages spanning many MTUs and pages.
    auto p = run_pair_ok(c.binary, {"-d", c.device.name, "--validate"}, c.device.address,
                         {"-d", c.device.name, "--validate", "-a", "-n", "4", "--warmup", "1",
                          "--json", json}, 300);
    const auto lines = read_json_lines(json);
    REQUIRE(lines.size() == 23);
    for (const auto& line : lines) CHECK(line.value("validated", false));
    CHECK_THAT(p.client->out(), Catch::Contains("validated: every byte"));
  }
}
