// The reporters, as golden text: the console table keeps perftest's column
// names and puts each figure under its own column; JSON Lines carry every
// figure and the context; the samples file is one value a line.

#include "catch2_compat.hpp"
#include "csv_cells.hpp"
#include "schema_samples.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rdmabench/report/report.hpp"
#include "rdmabench/topology/path_ceiling.hpp"

using namespace rdmabench;

namespace {

RunContext context(bool latency) {
  RunContext c;
  c.test = latency ? "write_lat" : "write_bw";
  c.title = latency ? "RDMA Write Latency Test" : "RDMA Write BW Test";
  c.role = "client";
  c.run_id = 0x1f2e3d4c5b6a7;
  c.started_utc = "2026-12-04T03:10:02Z";
  c.version = "0.1.0";
  c.build_type = "RelWithDebInfo";
  c.host = "lab-guest";
  c.device = "rxe0";
  c.port = 1;
  c.transport = "RoCEv2";
  c.link_layer = "Ethernet";
  c.gid_index = 1;
  c.gid = "::ffff:10.0.2.15";
  c.gid_type = "RoCEv2";
  c.gid_reason = "RoCEv2 IPv4 GID";
  c.mtu_bytes = 1024;
  c.connection = "out-of-band TCP";
  c.peer = "server 10.0.2.16:18515";
  c.local_memory = "host";
  c.remote_memory = "hugepage";
  c.clock = "TSC, 2400 MHz";
  c.tx_depth = latency ? 1 : 128;
  c.max_inline = 220;
  c.latency_kind = latency ? "one-way (round trip / 2)" : "";
  return c;
}

/// Every figure different, so that a figure printed in the wrong column shows.
SizeResult latency_result(std::uint64_t iterations, std::size_t samples) {
  SizeResult r;
  r.bytes = 2;
  r.iterations = iterations;
  r.warmup = 100;
  LatencySummary l;
  l.count = samples;
  l.min = 1.11;
  l.max = 9.99;
  l.mean = 3.33;
  l.stdev = 4.44;
  l.median = 2.22;
  l.p90 = 7.77;
  l.p99 = 5.55;
  l.p99_9 = 6.66;
  l.p99_99 = 8.88;
  r.latency = l;
  return r;
}

/// 11250 MB/s of 64 KiB messages is 0.171661 million messages a second.
SizeResult bandwidth_result() {
  SizeResult r;
  r.bytes = 65536;
  r.iterations = 5000;
  r.warmup = 128;
  r.bandwidth = BandwidthFigures{0.0291, 12500.0, 11250.0, 0.171661, 5000, {}};
  return r;
}

void render(Reporter& reporter, const RunContext& c, const std::vector<SizeResult>& rs) {
  reporter.begin(c);
  for (const auto& r : rs) reporter.size_done(r);
  reporter.end();
}

std::string console(const RunContext& c, const std::vector<SizeResult>& rs) {
  std::ostringstream out;
  render(*make_console_reporter(out), c, rs);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The column where `label` ends on `header`; figures are right-aligned to it.
std::size_t right_edge(const std::string& header, const std::string& label) {
  const auto at = header.find(label);
  REQUIRE(at != std::string::npos);
  return at + label.size();
}

/// The text of the whitespace-separated field of `row` that ends at `edge`.
std::string field_ending_at(const std::string& row, std::size_t edge) {
  REQUIRE(edge <= row.size());
  REQUIRE((edge == row.size() || row[edge] == ' '));
  const auto start = row.rfind(' ', edge - 1);
  return row.substr(start + 1, edge - start - 1);
}

const std::string kRule = "#" + std::string(86, '-');

/// A bandwidth context on the recorded machine whose mlx5_0 trained Gen4 x8
/// in a Gen5 x16 slot (tests/data/topology/degraded).
RunContext on_degraded_link() {
  RunContext c = context(false);
  c.device = "mlx5_0";
  c.transport = "InfiniBand";
  c.link_layer = "InfiniBand";
  c.mtu_bytes = 4096;
  const auto sysfs = std::filesystem::path(RDMABENCH_TEST_DATA) / "topology" / "degraded";
  c.achievable = path_ceiling(scan_topology(sysfs), "mlx5_0", 1, PacketHeaders::infiniband, 4096);
  return c;
}

const std::string kContextBlock =
    "# Device          : rxe0, port 1\n"
    "# Transport       : RoCEv2 (link layer Ethernet)\n"
    "# GID             : index 1, RoCEv2, ::ffff:10.0.2.15 (RoCEv2 IPv4 GID)\n"
    "# MTU             : 1024 bytes\n"
    "# Connection      : RC queue pairs, out-of-band TCP, peer server 10.0.2.16:18515\n"
    "# Memory          : local host (registration: host), remote hugepage\n";

}  // namespace

TEST_CASE("report: console latency table, golden", "[report]") {
  const std::string expected =
      kRule + "\n" +
      "#                  RDMA Write Latency Test (rdmabench 0.1.0, client)                   \n" +
      kContextBlock +
      "# Queue           : 1 QP, tx depth 1 each, max inline 220 bytes\n"
      "# Clock           : TSC, 2400 MHz\n"
      "# Completions     : busy polling (-e sleeps instead)\n"
      "# Latency         : one-way (round trip / 2); every sample kept, warmup excluded and "
      "counted\n" +
      kRule + "\n" +
      "#  #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
      "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]    t_p90[usec]"
      "   99.99% percentile[usec]  #warmup\n"
      "        2        1000           1.11           9.99             2.22           3.33"
      "             4.44                   5.55                     6.66           7.77"
      "                      8.88      100\n" +
      kRule + "\n";
  CHECK(console(context(true), {latency_result(1000, 1000)}) == expected);
}

TEST_CASE("report: a ping-pong server's header says why its row has one sample fewer", "[report]") {
  const std::string why = "a server's samples are the n-1 spans between its n answers";
  auto server = context(true);
  server.role = "server";
  CHECK(console(server, {latency_result(1000, 999)}).find(why) != std::string::npos);
  // The client's last span ends at the last answer: n samples, nothing to say.
  CHECK(console(context(true), {latency_result(1000, 1000)}).find(why) == std::string::npos);
  // A -D run's histogram has no count to explain; a read's server times nothing.
  auto timed = server;
  timed.duration_s = 2;
  CHECK(console(timed, {latency_result(1000, 999)}).find(why) == std::string::npos);
  auto read = server;
  read.latency_kind = "round trip (one read)";
  CHECK(console(read, {latency_result(1000, 999)}).find(why) == std::string::npos);
}

TEST_CASE("report: console latency figures sit under their perftest column names", "[report]") {
  const auto lines = lines_of(console(context(true), {latency_result(1000, 1000)}));
  REQUIRE(lines.size() == 16);
  const auto& header = lines[13];
  const auto& row = lines[14];
  const std::pair<const char*, const char*> columns[] = {
      {"#bytes", "2"},
      {"#iterations", "1000"},
      {"t_min[usec]", "1.11"},
      {"t_max[usec]", "9.99"},
      {"t_typical[usec]", "2.22"},  // perftest's t_typical is the median
      {"t_avg[usec]", "3.33"},
      {"t_stdev[usec]", "4.44"},
      {" 99% percentile[usec]", "5.55"},
      {"99.9% percentile[usec]", "6.66"},
      {"t_p90[usec]", "7.77"},
      {"99.99% percentile[usec]", "8.88"},
      {"#warmup", "100"},
  };
  for (const auto& [label, figure] : columns) {
    INFO(label);
    CHECK(field_ending_at(row, right_edge(header, label)) == figure);
  }
}

TEST_CASE("report: console bandwidth table, golden", "[report]") {
  SizeResult by_peer;  // the passive side of a bandwidth test measures nothing
  by_peer.bytes = 4096;
  by_peer.iterations = 5000;
  const std::string expected =
      kRule + "\n" +
      "#                     RDMA Write BW Test (rdmabench 0.1.0, client)                     \n" +
      kContextBlock +
      "# Queue           : 1 QP, tx depth 128 each, max inline 220 bytes\n"
      "# Clock           : TSC, 2400 MHz\n"
      "# Completions     : busy polling (-e sleeps instead)\n"
      "# Units           : MB/sec = 10^6 bytes/s (perftest's is 2^20), MsgRate in 10^6 msg/s\n" +
      kRule + "\n" +
      "#  #bytes    #iterations     BW peak[MB/sec]     BW average[MB/sec]   MsgRate[Mpps]  #warmup\n"
      "    65536           5000            12500.00               11250.00        0.171661      128\n"
      "#    4096           5000   (measured by the peer)\n" +
      kRule + "\n";
  CHECK(console(context(false), {bandwidth_result(), by_peer}) == expected);
}

/// Whether every whitespace-separated field of `line` is a number: a row of
/// figures, as awk and gnuplot take it.
bool numbers_only(const std::string& line) {
  std::istringstream fields(line);
  int count = 0;
  for (std::string field; fields >> field; ++count) {
    char* end = nullptr;
    std::strtod(field.c_str(), &end);
    if (end == field.c_str() || *end != '\0') return false;
  }
  return count > 0;
}

TEST_CASE("report: every console line but the rows of figures starts with '#'", "[report]") {
  // The notes under a row too: histogram, CPU, delivery, validation, per-QP.
  auto latency = latency_result(1000, 1000);
  latency.histogram_relative_error = 0.01;
  latency.validated = true;
  latency.cpu_client = CpuUsage{};
  latency.cpu_client->machine_cpus = 2;
  auto bandwidth = bandwidth_result();
  bandwidth.bandwidth->per_qp_mb_per_s = {5000.0, 6250.0};
  bandwidth.delivery = Delivery{2100, 1995};
  SizeResult by_peer;
  by_peer.bytes = 4096;
  by_peer.iterations = 5000;
  const std::string text = console(context(true), {latency}) + console(context(false), {bandwidth, by_peer});
  int rows = 0, notes = 0;
  for (const auto& line : lines_of(text)) {
    INFO(line);
    REQUIRE_FALSE(line.empty());
    if (numbers_only(line)) ++rows;
    else if (line[0] == '#') ++notes;
    else FAIL("neither a row of figures nor a '#' line");
  }
  CHECK(rows == 2);  // the latency row and the bandwidth row; "measured by the peer" is a note
  CHECK(notes > 20);
}

TEST_CASE("report: console bandwidth in Gb/s is MB/s * 8 / 1000", "[report]") {
  auto c = context(false);
  c.report_gbits = true;
  const auto lines = lines_of(console(c, {bandwidth_result()}));
  REQUIRE(lines.size() == 16);
  CHECK(lines[11] == "# Units           : Gb/sec = 10^9 bit/s, MsgRate in 10^6 msg/s");
  const auto& header = lines[13];
  const auto& row = lines[14];
  CHECK(field_ending_at(row, right_edge(header, "BW peak[Gb/sec]")) == "100.00");
  CHECK(field_ending_at(row, right_edge(header, "BW average[Gb/sec]")) == "90.00");
  CHECK(field_ending_at(row, right_edge(header, "MsgRate[Mpps]")) == "0.171661");  // unscaled
  CHECK(field_ending_at(row, right_edge(header, "#iterations")) == "5000");
  CHECK(field_ending_at(row, right_edge(header, "#warmup")) == "128");
}

TEST_CASE("report: JSON Lines for latency", "[report]") {
  std::ostringstream out;
  // A responder: 1000 iterations give it 999 round trips to time.
  render(*make_json_reporter(out), context(true),
         {latency_result(1000, 999), latency_result(20, 20)});
  const auto lines = lines_of(out.str());
  REQUIRE(lines.size() == 2);
  const auto j = nlohmann::json::parse(lines[0]);
  // What ties the record to its run, its other side and its layout.
  CHECK(j["schema_version"] == 2);
  CHECK(j["run_id"] == "01f2e3d4c5b6a7");
  CHECK(j["started_utc"] == "2026-12-04T03:10:02Z");
  CHECK(j["host"] == "lab-guest");
  CHECK(j["test"] == "write_lat");
  CHECK(j["role"] == "client");
  CHECK(j["bytes"] == 2);
  CHECK(j["iterations"] == 1000);
  CHECK(j["warmup_iterations"] == 100);
  CHECK_FALSE(j.contains("bandwidth"));
  const auto& l = j["latency"];
  CHECK(l["kind"] == "one-way (round trip / 2)");
  CHECK(l["samples"] == 999);
  CHECK(l["min_us"] == 1.11);
  CHECK(l["max_us"] == 9.99);
  CHECK(l["mean_us"] == 3.33);
  CHECK(l["stdev_us"] == 4.44);
  CHECK(l["median_us"] == 2.22);  // what the console calls t_typical
  CHECK(l["p90_us"] == 7.77);
  CHECK(l["p99_us"] == 5.55);
  CHECK(l["p99_9_us"] == 6.66);
  CHECK(l["p99_99_us"] == 8.88);
  CHECK(nlohmann::json::parse(lines[1])["iterations"] == 20);
}

TEST_CASE("report: JSON Lines for bandwidth", "[report]") {
  std::ostringstream out;
  render(*make_json_reporter(out), context(false), {bandwidth_result()});
  const auto lines = lines_of(out.str());
  REQUIRE(lines.size() == 1);
  const auto j = nlohmann::json::parse(lines[0]);
  CHECK(j["test"] == "write_bw");
  CHECK(j["bytes"] == 65536);
  CHECK(j["iterations"] == 5000);
  CHECK(j["warmup_iterations"] == 128);
  CHECK_FALSE(j.contains("latency"));
  const auto& b = j["bandwidth"];
  CHECK(b["seconds"] == 0.0291);
  CHECK(b["peak_MBps"] == 12500.0);
  CHECK(b["average_MBps"] == 11250.0);
  CHECK(b["average_Gbps"] == 90.0);
  CHECK(b["message_rate_Mpps"] == 0.171661);
  CHECK(b["units"]["MBps"] == "10^6 bytes/s");
}

TEST_CASE("report: the GRH this side set, on the console and in the JSON, and none where it set none", "[report]") {
  RunContext with_grh = context(false);
  with_grh.grh = rdmabench::GrhSettings{7, 0x12345, 106};
  const std::string text = console(with_grh, {bandwidth_result()});
  CHECK_THAT(text, Catch::Contains("# GRH             : hop limit 7, flow label 74565, traffic class 106\n"));
  with_grh.grh->flow_label = 0;
  CHECK_THAT(console(with_grh, {bandwidth_result()}),
             Catch::Contains("flow label 0 (the kernel's: from the QP numbers on RoCEv2)"));
  CHECK_THAT(console(context(false), {bandwidth_result()}), !Catch::Contains("# GRH"));
  RunContext unknown_hops = with_grh;
  unknown_hops.grh->hop_limit.reset();  // UD on RoCE: the route's, unknown here
  CHECK_THAT(console(unknown_hops, {bandwidth_result()}), Catch::Contains("GRH             : hop limit the IP route's,"));

  std::ostringstream out;
  with_grh.grh->flow_label = 1048575;
  render(*make_json_reporter(out), with_grh, {bandwidth_result()});
  const auto grh = nlohmann::json::parse(lines_of(out.str()).at(0))["context"]["grh"];
  CHECK(grh == nlohmann::json{{"hop_limit", 7}, {"flow_label", 1048575}, {"traffic_class", 106}});
  std::ostringstream none;
  render(*make_json_reporter(none), context(false), {bandwidth_result()});
  CHECK(nlohmann::json::parse(lines_of(none.str()).at(0))["context"]["grh"].is_null());
  std::ostringstream unknown;
  render(*make_json_reporter(unknown), unknown_hops, {bandwidth_result()});
  CHECK(nlohmann::json::parse(lines_of(unknown.str()).at(0))["context"]["grh"]["hop_limit"].is_null());
}

TEST_CASE("report: JSON context block", "[report]") {
  std::ostringstream out;
  render(*make_json_reporter(out), context(false), {bandwidth_result()});
  const auto c = nlohmann::json::parse(lines_of(out.str()).at(0))["context"];
  CHECK(c["test"] == "write_bw");
  CHECK(c["role"] == "client");
  CHECK(c["version"] == "0.1.0");
  CHECK(c["build_type"] == "RelWithDebInfo");
  CHECK(c["host"] == "lab-guest");
  CHECK(c["device"] == "rxe0");
  CHECK(c["port"] == 1);
  CHECK(c["transport"] == "RoCEv2");
  CHECK(c["link_layer"] == "Ethernet");
  CHECK(c["gid"]["index"] == 1);
  CHECK(c["gid"]["value"] == "::ffff:10.0.2.15");
  CHECK(c["gid"]["type"] == "RoCEv2");
  CHECK(c["gid"]["reason"] == "RoCEv2 IPv4 GID");
  CHECK(c["mtu_bytes"] == 1024);
  CHECK(c["connection"] == "out-of-band TCP");
  CHECK(c["connection_type"] == "RC");
  CHECK(c["peer"] == "server 10.0.2.16:18515");
  CHECK(c["memory"]["local"] == "host");
  CHECK(c["memory"]["remote"] == "hugepage");
  CHECK(c["memory"]["registration"] == "host");
  CHECK(c["memory"]["local_device"] == "");
  CHECK(c["clock"] == "TSC, 2400 MHz");
  CHECK(c["tx_depth"] == 128);
  CHECK(c["max_inline_bytes"] == 220);
}

TEST_CASE("report: how each side waited for completions, in the header and the JSON context",
          "[report][events]") {
  auto c = context(false);
  CHECK(nlohmann::json::parse(lines_of([&] {
          std::ostringstream out;
          render(*make_json_reporter(out), c, {bandwidth_result()});
          return out.str();
        }()).at(0))["context"]["completions"] == "busy polling");
  c.completions = "events";
  std::ostringstream out;
  render(*make_json_reporter(out), c, {bandwidth_result()});
  CHECK(nlohmann::json::parse(lines_of(out.str()).at(0))["context"]["completions"] == "events");
  CHECK_THAT(console(c, {bandwidth_result()}),
             Catch::Contains("# Completions     : events: asleep on a completion channel until each arrives (-e)\n"));
  // A passive server reaps none: its header says nothing of it.
  c.completions = "none";
  CHECK_THAT(console(c, {bandwidth_result()}), !Catch::Contains("Completions"));
}

TEST_CASE("report: JSON for a size measured by the peer has neither block", "[report]") {
  SizeResult r;
  r.bytes = 8;
  r.iterations = 10;
  const auto j = to_json(r, context(false));
  CHECK(j["bytes"] == 8);
  CHECK_FALSE(j.contains("latency"));
  CHECK_FALSE(j.contains("bandwidth"));
  CHECK(j.contains("context"));
}

TEST_CASE("report: samples file, a comment line then one value a line", "[report]") {
  std::ostringstream out;
  auto with_samples = latency_result(3, 3);
  with_samples.latency_samples_us = {1.5, 2.25, 10.0};
  SizeResult without;  // nothing to dump: no lines at all
  without.bytes = 4;
  render(*make_samples_reporter(out), context(true), {with_samples, without});
  CHECK(out.str() ==
        "# write_lat client: 2 bytes, 3 samples, one-way (round trip / 2) in usec\n"
        "1.500000\n"
        "2.250000\n"
        "10.000000\n");
}

TEST_CASE("report: the tee reporter forwards everything to each reporter", "[report]") {
  std::ostringstream table, json;
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(make_console_reporter(table));
  reporters.push_back(make_json_reporter(json));
  render(*make_tee_reporter(std::move(reporters)), context(false), {bandwidth_result()});
  CHECK(table.str() == console(context(false), {bandwidth_result()}));
  CHECK(nlohmann::json::parse(lines_of(json.str()).at(0))["bytes"] == 65536);
}

TEST_CASE("report: --output prints one bare number per size, nothing for the passive side", "[report]") {
  std::ostringstream lat, bw, rate, gbits;
  auto l = rdmabench::make_bare_number_reporter(lat, rdmabench::BareFigure::latency);
  l->begin(context(true));
  l->size_done(latency_result(1000, 1000));
  CHECK(lat.str() == "2.22\n");  // the median

  auto b = rdmabench::make_bare_number_reporter(bw, rdmabench::BareFigure::bandwidth);
  b->begin(context(false));
  b->size_done(bandwidth_result());
  SizeResult passive;
  passive.bytes = 65536;
  b->size_done(passive);
  CHECK(bw.str() == "11250.00\n");

  auto g = rdmabench::make_bare_number_reporter(gbits, rdmabench::BareFigure::bandwidth);
  auto c = context(false);
  c.report_gbits = true;
  g->begin(c);
  g->size_done(bandwidth_result());
  CHECK(gbits.str() == "90.00\n");

  auto m = rdmabench::make_bare_number_reporter(rate, rdmabench::BareFigure::message_rate);
  m->begin(context(false));
  m->size_done(bandwidth_result());
  CHECK(rate.str() == "0.171661\n");
}

namespace {

/// A CSV's header and first row, cell by cell.
std::pair<std::vector<std::string>, std::vector<std::string>> csv_of(const std::string& text) {
  std::istringstream lines(text);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  return {csv_cells(header), csv_cells(row)};
}

std::map<std::string, std::string> csv_row(const std::string& text) {
  const auto [names, values] = csv_of(text);
  REQUIRE(names.size() == values.size());
  std::map<std::string, std::string> row;
  for (std::size_t i = 0; i < names.size(); ++i) row[names[i]] = values[i];
  return row;
}

}  // namespace

TEST_CASE("report: CSV has a header and one full row per size", "[report]") {
  std::ostringstream out;
  auto csv = rdmabench::make_csv_reporter(out);
  csv->begin(context(true));
  csv->size_done(latency_result(1000, 1000));
  std::istringstream lines(out.str());
  std::string header, row, extra;
  std::getline(lines, header);
  std::getline(lines, row);
  CHECK_FALSE(std::getline(lines, extra));
  const auto count = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  CHECK(count(header) == count(row));
  CHECK(header ==
        "schema_version,run_id,started_utc,host,test,role,device,transport,bytes,iterations,warmup_iterations,"
        "lat_samples,lat_min_us,lat_max_us,lat_median_us,lat_mean_us,lat_stdev_us,lat_p90_us,lat_p99_us,"
        "lat_p99_9_us,lat_p99_99_us,bw_seconds,bw_peak_MBps,bw_average_MBps,bw_average_Gbps,"
        "bw_message_rate_Mpps,bw_server_average_MBps,bw_both_average_MBps,bw_both_message_rate_Mpps,"
        "load_queue_pairs,load_op,load_bytes,load_mean_Gbps,load_stdev_Gbps,load_intervals,repeat,repeats");
  CHECK(row ==
        "2,01f2e3d4c5b6a7,2026-12-04T03:10:02Z,lab-guest,write_lat,client,rxe0,RoCEv2,2,1000,100,"
        "1000,1.11,9.99,2.22,3.33,4.44,7.77,5.55,6.66,8.88,,,,,,,,,,,,,,,1,1");
}

TEST_CASE("report: every CSV column is the JSON record's field of the same name", "[report]") {
  // lat_X is latency.X, bw_X bandwidth.X, bw_server_X bandwidth_server.X,
  // bw_both_X bandwidth_both.X, load_X load.X; the rest are top-level or
  // context fields of the same name.
  auto c = context(false);
  c.bidirectional = true;
  auto r = bandwidth_result();
  r.server_bandwidth = BandwidthFigures{0.0301, 12000.0, 10000.0, 0.152588, 4600, {}};
  std::ostringstream out, json;
  auto csv = rdmabench::make_csv_reporter(out);
  csv->begin(c);
  csv->size_done(r);
  const auto row = csv_row(out.str());
  const auto j = to_json(r, c);
  const std::pair<const char*, const char*> groups[] = {
      {"bw_server_", "bandwidth_server"}, {"bw_both_", "bandwidth_both"}, {"bw_", "bandwidth"},
      {"lat_", "latency"}, {"load_", "load"}};
  int compared = 0;
  for (const auto& [name, cell] : row) {
    if (cell.empty()) continue;
    const nlohmann::json* field = nullptr;
    for (const auto& [prefix, group] : groups) {
      if (name.rfind(prefix, 0) != 0) continue;
      const auto leaf = name.substr(std::string(prefix).size());
      INFO(name << " as " << group << "." << leaf);
      REQUIRE(j.contains(group));
      REQUIRE(j[group].contains(leaf));
      field = &j[group][leaf];
      break;
    }
    if (!field) field = j.contains(name) ? &j[name] : &j["context"][name];
    INFO(name << " = " << cell << ", JSON " << field->dump());
    if (field->is_number())
      CHECK(std::stod(cell) == Approx(field->get<double>()));
    else
      CHECK(cell == (field->is_string() ? field->get<std::string>() : field->dump()));
    ++compared;
  }
  CHECK(compared == 21);
  // -b means the same as in the JSON: bw_* is this side's direction.
  CHECK(row.at("bw_average_MBps") == "11250");
  CHECK(row.at("bw_server_average_MBps") == "10000");
  CHECK(row.at("bw_both_average_MBps") == "21250");
}

TEST_CASE("report: CSV rows of a loaded latency run carry the load's figures last", "[report][load]") {
  std::ostringstream out;
  auto csv = rdmabench::make_csv_reporter(out);
  csv->begin(context(true));
  auto r = latency_result(1000, 1000);
  r.load = rdmabench::LoadFigures{4, "send", 65536, 9.5, 0.25, 23};
  csv->size_done(r);
  const auto [header, row] = csv_of(out.str());
  CHECK(header.size() == row.size());
  const auto cells = csv_row(out.str());
  CHECK(cells.at("load_queue_pairs") == "4");
  CHECK(cells.at("load_op") == "send");
  CHECK(cells.at("load_bytes") == "65536");
  CHECK(cells.at("load_mean_Gbps") == "9.5");
  CHECK(cells.at("load_stdev_Gbps") == "0.25");
  CHECK(cells.at("load_intervals") == "23");
  CHECK(cells.at("bw_average_MBps").empty());
}

TEST_CASE("report: the progress line counts sizes and clears itself", "[report]") {
  std::ostringstream out;
  auto progress = rdmabench::make_progress_reporter(out, 2);
  progress->begin(context(false));
  progress->size_done(bandwidth_result());
  CHECK(out.str() == "\r[1/2] 65536 bytes done");
  progress->size_done(bandwidth_result());
  progress->end();
  CHECK_THAT(out.str(), Catch::Contains("\r[2/2] 65536 bytes done"));
  CHECK_THAT(out.str(), Catch::EndsWith("\r"));
}

TEST_CASE("report: a -D size says how long it times and until when", "[report]") {
  std::ostringstream out;
  // 2026-12-04 13:00:00 local time, whatever the zone.
  std::tm noon{};
  noon.tm_year = 126;
  noon.tm_mon = 11;
  noon.tm_mday = 4;
  noon.tm_hour = 13;
  noon.tm_isdst = -1;
  const std::time_t at = std::mktime(&noon);
  auto progress = rdmabench::make_progress_reporter(out, 1, [at] { return at; });
  auto c = context(false);
  c.duration_s = 60;
  progress->begin(c);
  progress->size_started(65536);
  CHECK(out.str() == "\r[1/1] 65536 bytes: timing for 60 s, until 13:01:00");
  progress->size_done(bandwidth_result());
  // The shorter line blanks the rest of the longer one.
  CHECK_THAT(out.str(), Catch::EndsWith("\r[1/1] 65536 bytes done" + std::string(28, ' ')));
  progress->end();
  CHECK_THAT(out.str(), Catch::EndsWith("\r" + std::string(22, ' ') + "\r"));
}

TEST_CASE("report: console shows the CPU placement and a GPU's relationship when known", "[report]") {
  auto c = context(true);
  CHECK(console(c, {}).find("CPU placement") == std::string::npos);  // not decided: no line
  c.cpu_placement = "CPUs 0-3 (NUMA node 0 of mlx5_0)";
  c.gpu_relationship = "PIX: at most a single PCIe bridge";
  const auto text = console(c, {});
  CHECK_THAT(text, Catch::Contains(" CPU placement   : CPUs 0-3 (NUMA node 0 of mlx5_0)\n"));
  CHECK_THAT(text, Catch::Contains(" GPU to device   : PIX: at most a single PCIe bridge\n"));
}

TEST_CASE("report: JSON context carries the NUMA node, pinning and GPU relationship", "[report]") {
  auto c = context(false);
  auto j = to_json(c);
  CHECK(j["numa"]["device_node"].is_null());
  CHECK(j["numa"]["pinned_cpus"] == "");
  CHECK(j["gpu_relationship"].is_null());  // no GPU: null, not an empty code
  c.device_numa_node = 1;
  c.pinned_cpus = "4-7";
  c.cpu_placement = "CPUs 4-7 (NUMA node 1 of mlx5_0)";
  c.gpu_relationship = "SYS: across NUMA nodes";
  j = to_json(c);
  CHECK(j["numa"]["device_node"] == 1);
  CHECK(j["numa"]["pinned_cpus"] == "4-7");
  CHECK(j["numa"]["placement"] == "CPUs 4-7 (NUMA node 1 of mlx5_0)");
  CHECK(j["gpu_relationship"] == "SYS: across NUMA nodes");
}

TEST_CASE("report: an unreliable receiver's delivery, in JSON and on the console", "[report]") {
  SizeResult r;
  r.bytes = 512;
  r.iterations = 2000;
  r.delivery = Delivery{2100, 1995};
  auto c = context(false);
  c.connection_type = "UD";
  const auto j = to_json(r, c);
  CHECK(j["delivery"]["sent"] == 2100);
  CHECK(j["delivery"]["received"] == 1995);
  CHECK(j["delivery"]["lost"] == 105);
  CHECK(j["delivery"]["loss_percent"] == 5.0);
  CHECK_FALSE(j["delivery"].contains("per_receiver"));
  CHECK(j["context"]["connection_type"] == "UD");
  std::ostringstream out;
  render(*make_console_reporter(out), c, {r});
  CHECK_THAT(out.str(), Catch::Contains("UD queue pairs, out-of-band TCP") &&
                            Catch::Contains("delivery: 1995 of 2100 messages sent arrived (105 lost, 5.00%)"));
  // Nothing arrived at all: the delivery line says so instead of "measured by the peer".
  r.delivery = Delivery{2100, 0};
  std::ostringstream none;
  render(*make_console_reporter(none), c, {r});
  CHECK_THAT(none.str(), Catch::Contains("0 of 2100 messages sent arrived (2100 lost, 100.00%)"));
  CHECK_THAT(none.str(), !Catch::Contains("measured by the peer"));
}

TEST_CASE("report: a multicast server's delivery, together and per receiver", "[report][multicast]") {
  SizeResult r;
  r.bytes = 512;
  r.iterations = 2000;
  r.delivery = Delivery{4200, 4150};  // 2100 messages x 2 receivers
  r.delivery_per_receiver = {{0x11, Delivery{2100, 2100}}, {0x12, Delivery{2100, 2050}}};
  auto c = context(false);
  c.connection_type = "UD";
  c.multicast_group = "::ffff:239.255.72.83";
  c.multicast_receivers = 2;
  const auto j = to_json(r, c);
  CHECK(j["context"]["multicast"]["group"] == "::ffff:239.255.72.83");
  CHECK(j["context"]["multicast"]["receivers"] == 2);
  CHECK(j["delivery"]["sent"] == 4200);
  CHECK(j["delivery"]["lost"] == 50);
  REQUIRE(j["delivery"]["per_receiver"].size() == 2);
  CHECK(j["delivery"]["per_receiver"][1]["qp_number"] == 0x12);
  CHECK(j["delivery"]["per_receiver"][1]["received"] == 2050);
  CHECK(j["delivery"]["per_receiver"][1]["lost"] == 50);
  CHECK(j["delivery"]["per_receiver"][1]["loss_percent"].get<double>() == Approx(100.0 * 50 / 2100));
  CHECK(j["delivery"]["per_receiver"][0]["loss_percent"] == 0.0);
  std::ostringstream out;
  render(*make_console_reporter(out), c, {r});
  CHECK_THAT(out.str(), Catch::Contains("# Multicast       : group ::ffff:239.255.72.83: the client sends to it, 2 "
                                        "receiving QPs on the server"));
  CHECK_THAT(out.str(), Catch::Contains("delivery: 4150 of 4200 copies arrived (2100 messages sent to the group x 2 "
                                        "receivers; 50 lost, 1.19%)"));
  CHECK_THAT(out.str(), Catch::Contains("receiver 1 (QP 0x000011): 2100 of 2100 arrived (0 lost, 0.00%)"));
  CHECK_THAT(out.str(), Catch::Contains("receiver 2 (QP 0x000012): 2050 of 2100 arrived (50 lost, 2.38%)"));
  // Without multicast the context says so with null.
  CHECK(to_json(r, context(false))["context"]["multicast"].is_null());
}

TEST_CASE("report: the header says why inline is what it is, and the PCIe ordering", "[report]") {
  auto c = context(false);
  c.max_inline = 0;
  c.inline_reason = "GPU memory cannot be inlined";
  c.relaxed_local = true;
  c.relaxed_ordering = "relaxed ordering requested for both buffers";
  const std::string text = console(c, {bandwidth_result()});
  CHECK_THAT(text, Catch::Contains(
                       "# Queue           : 1 QP, tx depth 128 each, max inline 0 bytes (GPU memory "
                       "cannot be inlined)\n"));
  CHECK_THAT(text, Catch::Contains(
                       "# PCIe ordering   : relaxed ordering requested for both buffers\n"));

  std::ostringstream out;
  render(*make_json_reporter(out), c, {bandwidth_result()});
  const auto j = nlohmann::json::parse(lines_of(out.str()).at(0))["context"];
  CHECK(j["max_inline_bytes"] == 0);
  CHECK(j["max_inline_reason"] == "GPU memory cannot be inlined");
  CHECK(j["memory"]["relaxed_ordering"]["local_buffer"] == true);
  CHECK(j["memory"]["relaxed_ordering"]["exposed_buffer"] == false);
  CHECK(j["memory"]["relaxed_ordering"]["reason"] == "relaxed ordering requested for both buffers");
}

TEST_CASE("report: a -D size says every tick how long it has run and has left", "[report]") {
  std::ostringstream out;
  std::atomic<std::time_t> now{1'000'000};
  std::atomic<int> clock_reads{0};
  auto progress = rdmabench::make_progress_reporter(
      out, 1, [&] { return ++clock_reads, now.load(); }, std::chrono::milliseconds(5));
  auto c = context(false);
  c.duration_s = 60;
  progress->begin(c);
  progress->size_started(65536);  // reads the clock once: the start
  now = 1'000'020;
  // The ticker reads the clock once per tick, then shows the line; the
  // size's end joins it, so the line is written before out is read.
  for (int i = 0; i < 1000 && clock_reads < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  progress->size_done(bandwidth_result());
  CHECK_THAT(out.str(), Catch::Contains("\r[1/1] 65536 bytes: 20 s of 60 s, 40 s left"));
  CHECK_THAT(out.str(), Catch::EndsWith("[1/1] 65536 bytes done" + std::string(20, ' ')));
  progress->end();
}

TEST_CASE(
    "report: the counters that moved are printed under their row, and every delta is in the JSON",
    "[report][counters]") {
  auto moved = bandwidth_result();
  moved.counters = rdmabench::CounterDeltas{
      "rxe0 port 1 hw_counters", false, 12, {{"rcvd_seq_err", 3}, {"duplicate_request", 1}}, {}};
  auto quiet = bandwidth_result();
  quiet.counters = rdmabench::CounterDeltas{"rxe0 port 1 hw_counters", false, 12, {}, {}};
  const auto text = console(context(false), {moved, quiet});
  CHECK_THAT(text,
             Catch::Contains("#         counters (rxe0 port 1 hw_counters): duplicate_request +1, "
                             "rcvd_seq_err +3\n"));
  CHECK(text.find("counters (") == text.rfind("counters ("));  // the quiet size says nothing
  std::ostringstream out;
  render(*make_json_reporter(out), context(false), {moved});
  const auto j = nlohmann::json::parse(out.str());
  REQUIRE(j.contains("counters"));
  CHECK(j["counters"]["source"] == "rxe0 port 1 hw_counters");
  CHECK(j["counters"]["host_wide"] == false);
  CHECK(j["counters"]["read"] == 12);
  CHECK(j["counters"]["moved"]["rcvd_seq_err"] == 3);
}

namespace {

/// Three intervals, the last stretched by a stall, and a partial tail.
rdmabench::BandwidthOverTime stalled_over_time() {
  return *rdmabench::bandwidth_over_time(
      {{0, 0}, {0.1, 100'000'000}, {0.2, 200'000'000}, {0.5, 250'000'000}, {0.53, 280'000'000}},
      100, /*last_is_tail=*/true, false);
}

}  // namespace

TEST_CASE("report: bandwidth over time under the row and in the JSON", "[report][over-time]") {
  auto r = bandwidth_result();
  r.over_time = stalled_over_time();
  const auto text = console(context(false), {r});
  CHECK_THAT(text, Catch::Contains("#         over time: 3 x 100 ms, the last 30 ms (partial) left out: "
                                   "min 166.67 p1 166.67 p50 1000.00 MB/sec, CV 66.6%"));
  std::ostringstream out;
  render(*make_json_reporter(out), context(false), {r});
  const auto j = nlohmann::json::parse(out.str());
  const auto& t = j["bandwidth"]["over_time"];
  CHECK(t["intervals"] == 3);
  CHECK(t["min_MBps"].get<double>() == Approx(50.0 / 0.3));
  CHECK(t["series_ms"][2].get<double>() == Approx(300.0));
  CHECK(t["tail_ms"].get<double>() == Approx(30.0));
  CHECK(t["cut_short"] == false);
  // Without intervals (--interval 0, or a short run) neither says anything.
  CHECK_THAT(console(context(false), {bandwidth_result()}), !Catch::Contains("over time"));
}

namespace {

/// A soak's third period, cut short, and its summary: the same kind of
/// record, marked by `soak`.
std::pair<SizeResult, rdmabench::SoakSummary> soak_records() {
  auto period = bandwidth_result();
  period.period = 3;
  period.period_cut_short = true;
  period.counters = rdmabench::CounterDeltas{"rxe0 port 1 hw_counters", false, 12, {{"rcvd_seq_err", 2}}, {}};
  period.counters_per_interval = rdmabench::CounterSeries{100, {100, 200}, {{"rcvd_seq_err", {0, 2}}}};
  rdmabench::SoakSummary summary;
  summary.periods = 3;
  summary.stopped_by = "SIGINT on this side";
  summary.whole = bandwidth_result();
  summary.whole.counters = period.counters;
  return {period, summary};
}

}  // namespace

TEST_CASE("report: a soak's periods and its summary, on the console and in the JSON", "[report][soak]") {
  const auto [period, summary] = soak_records();
  std::ostringstream console_text, json_text;
  for (auto* out : {&console_text, &json_text}) {
    auto reporter = out == &console_text ? make_console_reporter(*out) : make_json_reporter(*out);
    reporter->begin(context(false));
    reporter->size_done(period);
    reporter->soak_done(summary);
    reporter->end();
  }
  CHECK_THAT(console_text.str(), Catch::Contains("#         soak period 3 (cut short by the stop signal)\n"));
  CHECK_THAT(console_text.str(), Catch::Contains("#         soak: 3 periods, stopped by SIGINT on this side; the whole run:\n"));
  std::istringstream lines(json_text.str());
  std::string first, second;
  REQUIRE(std::getline(lines, first));
  REQUIRE(std::getline(lines, second));
  const auto p = nlohmann::json::parse(first);
  const auto s = nlohmann::json::parse(second);
  CHECK(p["soak"] == nlohmann::json({{"period", 3}, {"cut_short", true}}));
  CHECK(p["counters"]["per_interval"]["moved"]["rcvd_seq_err"] == nlohmann::json({0, 2}));
  CHECK(s["soak"]["summary"] == true);
  CHECK(s["soak"]["periods"] == 3);
  CHECK(s["soak"]["stopped_by"] == "SIGINT on this side");
  CHECK(s["counters"]["region"] == "the whole soak: every period's deltas summed");
  CHECK(s["bandwidth"]["messages"] == 5000);
}

namespace {

/// A send_bw server with --use-srq -q 4 on rxe: the shared queue's depth in
/// the context, and the RNR NAKs of the size (none sent, two received).
std::pair<RunContext, SizeResult> shared_receive_queue_run() {
  RunContext c = context(false);
  c.test = "send_bw";
  c.queue_pairs = 4;
  c.srq_depth = 2048;
  c.srq_reason = "the default depth 512 x 4 QPs";
  c.parameters.operation = Operation::send;
  c.parameters.queue_pairs = 4;
  c.parameters.use_srq = true;
  SizeResult r = bandwidth_result();
  r.bandwidth->per_qp_mb_per_s = {2800.0, 2810.0, 2820.0, 2820.0};
  r.receiver_not_ready = ReceiverNotReady{0, 2, "rxe0 port 1 hw_counters"};
  return {c, r};
}

}  // namespace

TEST_CASE("report: a shared receive queue's depth in the header and the JSON, its RNR NAKs per size",
          "[report][srq]") {
  const auto [c, r] = shared_receive_queue_run();
  const auto text = console(c, {r});
  CHECK_THAT(text, Catch::Contains("# SRQ             : depth 2048 shared by 4 QPs (the default depth 512 x 4 QPs)\n"));
  CHECK_THAT(text, Catch::Contains("#         receiver not ready: 0 RNR NAKs sent, 2 received (rxe0 port 1 hw_counters)\n"));
  const auto j = to_json(r, c);
  CHECK(j["context"]["srq"] ==
        nlohmann::json({{"depth", 2048}, {"queue_pairs", 4}, {"reason", "the default depth 512 x 4 QPs"}}));
  CHECK(j["context"]["parameters"]["use_srq"] == true);
  CHECK(j["receiver_not_ready"] ==
        nlohmann::json({{"naks_sent", 0}, {"naks_received", 2}, {"source", "rxe0 port 1 hw_counters"}}));
  // Without one: no line, a null in the context, no figure.
  const auto plain = console(context(false), {bandwidth_result()});
  CHECK(plain.find("# SRQ") == std::string::npos);
  CHECK(plain.find("receiver not ready") == std::string::npos);
  const auto p = to_json(bandwidth_result(), context(false));
  CHECK(p["context"]["srq"].is_null());
  CHECK_FALSE(p.contains("receiver_not_ready"));
  // A device that counts only one side says which it does not.
  SizeResult mlx5 = bandwidth_result();
  mlx5.receiver_not_ready = ReceiverNotReady{std::nullopt, 3, "mlx5_0 port 1 hw_counters"};
  CHECK_THAT(console(c, {mlx5}), Catch::Contains("receiver not ready: 3 RNR NAKs received (those sent are not counted)"));
  CHECK(to_json(mlx5, c)["receiver_not_ready"]["naks_sent"].is_null());
}

TEST_CASE("report: --repeat marks each record, CSV row and console pass with its repeat of N",
          "[report][repeat]") {
  auto c = context(false);
  c.parameters.repeats = 2;
  auto first = bandwidth_result();
  auto second = bandwidth_result();
  second.repeat = 2;
  std::ostringstream console_text, json_text, csv_text;
  render(*make_console_reporter(console_text), c, {first, second});
  render(*make_json_reporter(json_text), c, {first, second});
  render(*rdmabench::make_csv_reporter(csv_text), c, {second});
  const auto lines = lines_of(json_text.str());
  REQUIRE(lines.size() == 2);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const auto j = nlohmann::json::parse(lines[k]);
    CHECK(j["repeat"] == k + 1);
    CHECK(j["repeats"] == 2);
    CHECK(j["run_id"] == "01f2e3d4c5b6a7");  // one run, both passes
    CHECK(j["context"]["parameters"]["repeats"] == 2);
  }
  CHECK(csv_row(csv_text.str()).at("repeat") == "2");
  CHECK(csv_row(csv_text.str()).at("repeats") == "2");
  const auto text = console_text.str();
  CHECK_THAT(text, Catch::Contains("#         repeat 1 of 2\n"));
  CHECK_THAT(text, Catch::Contains("#         repeat 2 of 2\n"));
  CHECK(text.find("repeat 1 of 2") < text.find("repeat 2 of 2"));
  CHECK_THAT(text, Catch::Contains("2 passes over the sizes on one connection"));
  // Without --repeat: repeat 1 of 1 in the record, no marker on the console.
  std::ostringstream plain_console, plain_json;
  render(*make_console_reporter(plain_console), context(false), {bandwidth_result()});
  render(*make_json_reporter(plain_json), context(false), {bandwidth_result()});
  CHECK(plain_console.str().find("repeat") == std::string::npos);
  const auto plain = nlohmann::json::parse(lines_of(plain_json.str()).at(0));
  CHECK(plain["repeat"] == 1);
  CHECK(plain["repeats"] == 1);
}

TEST_CASE("report: sample records of every kind, for the schema check", "[.schema-samples]") {
  // Latency (with a load beside it), bandwidth, and -b with the server's
  // direction: every group the pair JSON and CSV writers can emit.
  auto latency = latency_result(1000, 1000);
  latency.load = rdmabench::LoadFigures{4, "send", 65536, 9.5, 0.25, 23};
  latency.counters =
      rdmabench::CounterDeltas{"siw0: host TCP, host-wide", true, 3, {{"tcp_RetransSegs", 2}}, {}};
  auto both_ways = context(false);
  both_ways.bidirectional = true;
  both_ways.grh = rdmabench::GrhSettings{64, 0, 0};  // the others' is null
  auto datagram = context(true);
  datagram.connection_type = "UD";
  datagram.grh = rdmabench::GrhSettings{std::nullopt, 5, 0};  // UD on RoCE: the route's hop limit
  auto bidirectional = bandwidth_result();
  bidirectional.server_bandwidth = BandwidthFigures{0.0301, 12000.0, 10000.0, 0.152588, 4600, {}};
  bidirectional.over_time = stalled_over_time();
  auto json = rdmabench::test::schema_sample_file("pair.jsonl");
  auto csv_file = rdmabench::test::schema_sample_file("pair.csv");
  auto both_ways_degraded = on_degraded_link();
  both_ways_degraded.bidirectional = true;
  const auto [srq_context, srq_result] = shared_receive_queue_run();
  // A multicast server's record: the context's group, each receiver's delivery.
  auto multicast = context(false);
  multicast.connection_type = "UD";
  multicast.multicast_group = "::ffff:239.255.72.83";
  multicast.multicast_receivers = 2;
  auto received = bandwidth_result();
  received.delivery = Delivery{4200, 4150};
  received.delivery_per_receiver = {{0x11, Delivery{2100, 2100}}, {0x12, Delivery{2100, 2050}}};
  auto repeated = context(false);
  repeated.parameters.repeats = 3;
  repeated.completions = "events";  // -e with --repeat: each pass asleep between completions
  auto second_pass = bandwidth_result();
  second_pass.repeat = 2;
  const std::pair<RunContext, SizeResult> runs[] = {
      {context(true), latency},          {datagram, latency},
      {repeated, second_pass},           {context(false), bandwidth_result()},
      {both_ways, bidirectional},        {on_degraded_link(), bandwidth_result()},
      {both_ways_degraded, bidirectional}, {srq_context, srq_result},
      {multicast, received}};
  bool header = true;
  {
    // A soak's period and summary records: a CSV row for the period, none
    // for the summary (the CSV has a row per period, as per size).
    const auto [period, summary] = soak_records();
    std::ostringstream lines, rows;
    auto reporter = make_json_reporter(lines);
    reporter->begin(context(false));
    reporter->size_done(period);
    reporter->soak_done(summary);
    render(*rdmabench::make_csv_reporter(rows, header), context(false), {period});
    header = false;
    json << lines.str();
    csv_file << rows.str();
  }
  for (const auto& [c, r] : runs) {
    std::ostringstream lines, rows;
    render(*make_json_reporter(lines), c, {r});
    render(*rdmabench::make_csv_reporter(rows, header), c, {r});
    json << lines.str();
    csv_file << rows.str();
    header = false;
  }
  CHECK(json.good());
  CHECK(csv_file.good());
}

TEST_CASE("report: the header gives the achievable ceiling and a degraded link's warning", "[report][ceiling]") {
  const RunContext c = on_degraded_link();
  REQUIRE(c.achievable.ceiling.has_value());
  const auto text = console(c, {bandwidth_result()});
  CHECK_THAT(text, Catch::Contains("# Achievable      : " + describe(c.achievable) + "\n"));
  CHECK_THAT(text, Catch::Contains("limited by PCIe Gen4 x8 (port 400 Gb/s less InfiniBand headers at MTU 4096:"));
  CHECK_THAT(text, Catch::Contains("# PCIe link       : mlx5_0 Gen4 x8 (max Gen5 x16), MPS 256, MRRS 4096\n"));
  CHECK_THAT(text, Catch::Contains("# Warning         : mlx5_0 (PCI 0000:02:00.0) trained its PCIe link at Gen4 x8, "
                                   "below its maximum Gen5 x16"));
  // The share sits in a last column, after perftest's, on the row's numbers.
  const auto lines = lines_of(text);
  const auto header = std::find_if(lines.begin(), lines.end(),
                                   [](const std::string& l) { return l.find("#bytes") != std::string::npos; });
  REQUIRE(header != lines.end());
  CHECK_THAT(*header, Catch::EndsWith("#warmup  %achievable"));
  const std::string& row = *(header + 1);
  const double share = 100.0 * (11250.0 * 8 / 1000) / c.achievable.ceiling->gbps;
  CHECK(field_ending_at(row, right_edge(*header, "%achievable")) == fmt::format("{:.1f}", share));
  CHECK(field_ending_at(row, right_edge(*header, "BW average[MB/sec]")) == "11250.00");
}

TEST_CASE("report: a soft device's ceiling is its port's, and the header says so", "[report][ceiling]") {
  Topology soft;
  RdmaDevice rxe;
  rxe.name = "rxe0";
  rxe.ports.push_back({1, "10 Gb/sec (1X QDR)", "Ethernet"});
  soft.rdma_devices.push_back(rxe);
  RunContext c = context(false);
  c.achievable = path_ceiling(soft, "rxe0", 1, PacketHeaders::roce_v2_ipv4, 1024);
  const auto text = console(c, {bandwidth_result()});
  CHECK_THAT(text, Catch::Contains("limited by the port (port 10 Gb/s less RoCEv2 (IPv4) headers at MTU 1024: "));
  CHECK_THAT(text, Catch::Contains("; soft device: no PCIe link, the port's rate alone\n"));
  CHECK_THAT(text, !Catch::Contains("# PCIe link"));
  CHECK_THAT(text, !Catch::Contains("# Warning"));
}

TEST_CASE("report: JSON keeps the ceiling in the context and the share per size", "[report][ceiling]") {
  std::ostringstream out;
  auto c = on_degraded_link();
  c.bidirectional = true;
  auto both = bandwidth_result();
  both.server_bandwidth = BandwidthFigures{0.0301, 12000.0, 10000.0, 0.152588, 4600, {}};
  render(*make_json_reporter(out), c, {both});
  const auto j = nlohmann::json::parse(lines_of(out.str()).at(0));
  const double ceiling = j["context"]["achievable"]["Gbps"].get<double>();
  CHECK(ceiling == Approx(c.achievable.ceiling->gbps));
  CHECK(j["context"]["achievable"]["limited_by"] == "device_pcie");
  CHECK(j["context"]["achievable"]["device_link"]["width"] == 8);
  CHECK(j["context"]["achievable"]["warnings"].size() == 1);
  CHECK(j["bandwidth"]["percent_of_achievable"].get<double>() == Approx(100 * 90.0 / ceiling));
  CHECK(j["bandwidth_server"]["percent_of_achievable"].get<double>() == Approx(100 * 80.0 / ceiling));
  // Both directions against both directions' ceilings.
  CHECK(j["bandwidth_both"]["percent_of_achievable"].get<double>() == Approx(100 * 170.0 / (2 * ceiling)));
  // Where sysfs was not read, neither is there.
  std::ostringstream plain;
  render(*make_json_reporter(plain), context(false), {bandwidth_result()});
  const auto p = nlohmann::json::parse(lines_of(plain.str()).at(0));
  CHECK(p["context"]["achievable"].is_null());
  CHECK_FALSE(p["bandwidth"].contains("percent_of_achievable"));
}
