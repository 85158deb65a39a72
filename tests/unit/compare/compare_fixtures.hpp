#pragma once
// Records for rdma_compare's tests, made here rather than recorded: each
// test says the figures and context it needs, and the records carry only
// the fields a pair binary's --json line has for them (docs/json-output.md).

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace compare_test {

namespace fs = std::filesystem;
using nlohmann::json;

/// What a record says of its test and path; one field changed makes a
/// record of another test (or another context).
struct RecordSpec {
  std::string test = "write_bw";
  std::string role = "client";
  std::uint64_t bytes = 65536;
  std::string host = "host-a";
  std::string device = "rxe0";
  std::string peer = "server 10.0.2.15:40200";
  std::uint64_t iterations = 2000;
  int mtu = 1024;
  std::string firmware;               ///< left out when empty, as today's records leave it
  std::optional<double> rate_target;  ///< --rate, bytes/s
};

inline json context_of(const RecordSpec& s, std::uint64_t run_id) {
  const bool latency = s.test.ends_with("_lat");
  json c{{"test", s.test},
         {"role", s.role},
         {"device", s.device},
         {"port", 1},
         {"transport", "RoCEv2"},
         {"link_layer", "Ethernet"},
         {"mtu_bytes", s.mtu},
         {"gid", {{"index", 1}, {"type", "RoCEv2"}, {"value", "::ffff:10.0.2.15"}, {"reason", "RoCEv2 IPv4 GID"}}},
         {"memory", {{"local", "host"}, {"remote", "host"}, {"registration", "host"}}},
         {"version", "0.1.0"},
         {"build_type", "RelWithDebInfo"},
         {"peer", s.peer},
         {"parameters",
          {{"operation", "write"},
           {"measurement", latency ? "latency" : "bandwidth"},
           {"iterations", s.iterations},
           {"qp_type", "RC"},
           {"run_id", run_id},
           {"sizes", {s.bytes}}}}};
  if (!s.firmware.empty()) c["firmware"] = s.firmware;
  return c;
}

inline std::string run_id_text(std::uint64_t run_id) {
  std::ostringstream text;
  text << std::hex << (0x10000000000000ull + run_id);
  return text.str();
}

inline json base_record(const RecordSpec& s, std::uint64_t run_id) {
  return {{"schema_version", 2}, {"run_id", run_id_text(run_id)}, {"started_utc", "2026-12-04T04:54:27Z"},
          {"host", s.host},      {"test", s.test},                {"role", s.role},
          {"bytes", s.bytes},    {"iterations", s.iterations},    {"warmup_iterations", 100},
          {"context", context_of(s, run_id)}};
}

/// A bandwidth record whose average is `average_MBps`.
inline json bw_record(const RecordSpec& s, double average_MBps, std::uint64_t run_id) {
  json r = base_record(s, run_id);
  r["bandwidth"] = {{"seconds", 1.0},
                    {"messages", 1000},
                    {"average_MBps", average_MBps},
                    {"average_Gbps", average_MBps * 8 / 1000},
                    {"peak_MBps", average_MBps * 1.1},
                    {"peak_Gbps", average_MBps * 8.8 / 1000},
                    {"message_rate_Mpps", average_MBps / static_cast<double>(s.bytes)}};
  if (s.rate_target)
    r["bandwidth"]["rate"] = {{"target", *s.rate_target}, {"achieved", average_MBps * 1e6}, {"unit", "bytes/s"},
                              {"ratio", 1.0}, {"burst", 1}};
  return r;
}

/// A latency record whose median is `median_us` and p99 `p99_us`.
inline json lat_record(const RecordSpec& s, double median_us, double p99_us, std::uint64_t run_id) {
  json r = base_record(s, run_id);
  r["latency"] = {{"kind", "one-way (round trip / 2)"}, {"samples", s.iterations}, {"min_us", median_us * 0.9},
                  {"max_us", p99_us * 3},   {"mean_us", median_us * 1.05}, {"stdev_us", 1.0},
                  {"median_us", median_us}, {"p90_us", median_us * 1.1},   {"p99_us", p99_us},
                  {"p99_9_us", p99_us * 1.5}, {"p99_99_us", p99_us * 2}};
  return r;
}

/// A folder of its own under the temporary folder, removed at the end.
struct CompareScratch {
  fs::path path;
  explicit CompareScratch(const std::string& name)
      : path(fs::temp_directory_path() / ("rdmabench-compare-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~CompareScratch() { fs::remove_all(path); }

  /// Writes one JSON line per record to `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::vector<json>& records) const {
    const fs::path file = path / name;
    std::ofstream out(file);
    for (const json& r : records) out << r.dump() << "\n";
    return file.string();
  }
};

/// Five records of one bandwidth test, averages as given, run ids from `first_run`.
inline std::vector<json> bw_repeats(const RecordSpec& s, const std::vector<double>& averages, std::uint64_t first_run) {
  std::vector<json> records;
  for (std::size_t i = 0; i < averages.size(); ++i) records.push_back(bw_record(s, averages[i], first_run + i));
  return records;
}

/// One run with --repeat N (N = the averages given): its records share the
/// run id and carry repeat 1..N and repeats N, as a pair binary writes them.
inline std::vector<json> bw_run_repeated(const RecordSpec& s, const std::vector<double>& averages,
                                         std::uint64_t run_id) {
  std::vector<json> records;
  for (std::size_t i = 0; i < averages.size(); ++i) {
    json r = bw_record(s, averages[i], run_id);
    r["repeat"] = i + 1;
    r["repeats"] = averages.size();
    r["context"]["parameters"]["repeats"] = averages.size();
    records.push_back(r);
  }
  return records;
}

}  // namespace compare_test
