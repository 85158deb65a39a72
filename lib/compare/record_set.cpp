// One side of a comparison from its files: each line a pair record or a
// sweep record (told apart by the sweep's `figures` object), the records
// left out counted by reason, and a record read twice (the same file named
// twice, or a run's file beside a copy) dropped, so that it cannot pass
// for a repeat and narrow the noise.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "rdmabench/compare/measurement.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::compare {

namespace fs = std::filesystem;
using nlohmann::json;

bool MatchKey::operator==(const MatchKey& o) const {
  return std::tie(test, bytes, role, endpoints, parameters) == std::tie(o.test, o.bytes, o.role, o.endpoints, o.parameters);
}

bool MatchKey::operator<(const MatchKey& o) const {
  return std::tie(test, bytes, role, endpoints, parameters) < std::tie(o.test, o.bytes, o.role, o.endpoints, o.parameters);
}

std::string key_label(const MatchKey& key) {
  std::string label = fmt::format("{} {} B", key.test, key.bytes);
  if (key.role != "pair") label += ", " + key.role;
  if (!key.endpoints.empty()) label += (key.role == "pair" ? ", " : " at ") + key.endpoints;
  return label;
}

namespace {

/// The files a path names: itself, or a folder's records.
std::vector<fs::path> files_of(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  require(!error && fs::exists(status), fmt::format("'{}' does not exist", path),
          "give pair records (--json files), an rdma_sweep --out folder, or a folder of --json files");
  if (!fs::is_directory(status)) return {fs::path(path)};
  const fs::path results = fs::path(path) / "results.jsonl";
  if (fs::exists(results)) return {results};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path, error))
    if (entry.is_regular_file() && (entry.path().extension() == ".json" || entry.path().extension() == ".jsonl"))
      files.push_back(entry.path());
  require(!error, fmt::format("cannot list the folder '{}': {}", path, error.message()));
  require(!files.empty(), fmt::format("the folder '{}' holds no results.jsonl and no *.json or *.jsonl file", path),
          "give an rdma_sweep --out folder, a folder of --json files, or the files themselves");
  std::sort(files.begin(), files.end());
  return files;
}

/// Who wrote a record, for telling a repeat from the same record read twice.
using RecordIdentity = std::tuple<std::string, std::int64_t, MatchKey>;

struct SideReader {
  const ReadOptions& options;
  RecordSet set;
  std::map<std::string, std::size_t> left_out;  ///< why -> how many
  std::set<RecordIdentity> seen;
  std::size_t duplicates = 0;

  void add(Measurement m) {
    // A record without a run id cannot be told from a repeat: kept.
    if (!m.run_id.empty() && !seen.insert({m.run_id, m.repeat.value_or(-1), m.key}).second) {
      ++duplicates;
      return;
    }
    set.measurements.push_back(std::move(m));
  }

  void read_line(const std::string& line, const std::string& source) {
    json record;
    try {
      record = json::parse(line);
    } catch (const json::parse_error& e) {
      throw Error(fmt::format("{} is not JSON ({})", source, e.what()),
                  "give the JSON Lines files the benchmarks write with --json, or rdma_sweep's results.jsonl");
    }
    std::string why;
    std::optional<Measurement> m;
    try {
      // A sweep's line has both ends and its pass (a failed pair has no figures).
      if (record.is_object() && record.contains("pass") && record.contains("client") && record.contains("server")) {
        m = measurement_of_sweep_record(sweep::from_json_line(line), options, why);
      } else {
        m = measurement_of_pair_record(record, options, why);
      }
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", source, e.what()));  // what() holds the hint already
    }
    if (!m) {
      ++left_out[why];
      return;
    }
    m->source = source;
    add(std::move(*m));
  }

  void read_file(const fs::path& file) {
    std::ifstream in(file);
    require(static_cast<bool>(in), fmt::format("cannot read '{}'", file.string()),
            "check the path and its permissions");
    set.files.push_back(file.string());
    std::size_t number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      read_line(line, fmt::format("{} line {}", file.string(), number));
    }
    require(!in.bad(), fmt::format("could not read all of '{}'", file.string()));
  }
};

}  // namespace

RecordSet read_side(std::span<const std::string> paths, const ReadOptions& options) {
  require(!paths.empty(), "no records named", "give a file or folder for each side");
  SideReader reader{options, {}, {}, {}, 0};
  for (const std::string& path : paths)
    for (const fs::path& file : files_of(path)) reader.read_file(file);
  for (const auto& [why, count] : reader.left_out)
    reader.set.notes.push_back(fmt::format("{} left out: {}", count, why));
  if (reader.duplicates)
    reader.set.notes.push_back(fmt::format("{} records left out: read twice (the same run id, repeat and test)",
                                           reader.duplicates));
  std::string named;
  for (const std::string& path : paths) named += (named.empty() ? "" : ", ") + path;
  require(!reader.set.measurements.empty(), fmt::format("no measured record to compare in {}", named),
          reader.set.notes.empty() ? "the files are empty" : "read: " + reader.set.notes.front());
  return std::move(reader.set);
}

}  // namespace rdmabench::compare
