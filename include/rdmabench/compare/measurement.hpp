#pragma once
/// @file
/// One side of a comparison, read from records: every measured record as a
/// Measurement, with the key that says which other records it is a repeat
/// of (test, size, role, endpoints, parameters), its figures by their flat
/// names, and the context that can explain a change (device, firmware,
/// MTU, memory, versions, a rate cap).

// fmt/format.h before the namespace below exists: fmt calls a compare() of
// its own unqualified, and a file that says `using namespace rdmabench`
// would otherwise meet this namespace there when a unity batch includes
// fmt/format.h for the first time after it.
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rdmabench/sweep/record.hpp"

namespace rdmabench::compare {

/// What makes records repeats of one test: only records with equal keys
/// are compared with each other.
struct MatchKey {
  std::string test;         ///< "write_bw"
  std::uint64_t bytes = 0;  ///< message size
  /// Who measured: "client" or "server" (pair records); "pair" for a
  /// sweep's records, which carry both ends.
  std::string role;
  /// Where: "host-a rxe0 port 1, peer server 10.0.2.15" (pair records: this
  /// side, and the peer's address without its port); "host-a rxe0 ->
  /// host-b rxe0" (a sweep's directed pair). Empty with --ignore-endpoints.
  std::string endpoints;
  /// The test parameters both sides agreed on (the pair records'
  /// context.parameters less run_id, sizes and a repeat count), or a sweep's
  /// pattern; values as JSON text.
  std::map<std::string, std::string> parameters;

  bool operator==(const MatchKey& other) const;
  bool operator<(const MatchKey& other) const;
};

/// "write_bw 65536 B, client at host-a rxe0 port 1, peer server 10.0.2.15"
std::string key_label(const MatchKey& key);

struct Measurement {
  MatchKey key;
  std::map<std::string, double> figures;      ///< by flat name: "bw_average_MBps", "lat_p99_us", ...
  std::map<std::string, std::string> context; ///< what can explain a change: "firmware", "mtu_bytes", ...
  std::string source;                         ///< "FILE line N"
  std::string run_id;
  std::optional<std::int64_t> repeat;         ///< a repeat index, where the record carries one
};

struct ReadOptions {
  /// Match records whatever their hosts, devices and peers (two
  /// machines, or a renamed host); the endpoints then count as context.
  bool ignore_endpoints = false;
};

/// One side: its measurements, the files they came from, and what was left out.
struct RecordSet {
  std::vector<Measurement> measurements;
  std::vector<std::string> files;
  std::vector<std::string> notes;  ///< "2 soak period records left out (their summary is compared)", ...
};

/// Reads one side. Each path is a JSON Lines file of pair records (--json)
/// or of a sweep's records (results.jsonl), or a folder: an rdma_sweep
/// --out folder (its results.jsonl), or any other folder (its *.json and
/// *.jsonl files, in name order). Throws rdmabench::Error naming the file
/// (and line) that cannot be read, is not JSON or holds no measured record.
RecordSet read_side(std::span<const std::string> paths, const ReadOptions& options = {});

/// One pair record (a pair binary's --json line) as a Measurement, or
/// nothing when it is not one to compare (a soak's period record: `why`
/// says so). Throws rdmabench::Error naming the field that does not fit.
std::optional<Measurement> measurement_of_pair_record(const nlohmann::json& record, const ReadOptions& options,
                                                      std::string& why);

/// A sweep's measured, pass=sweep record as a Measurement; nothing for a
/// failed pair or a re-test (`why` says which).
std::optional<Measurement> measurement_of_sweep_record(const sweep::SweepRecord& record, const ReadOptions& options,
                                                       std::string& why);

}  // namespace rdmabench::compare
