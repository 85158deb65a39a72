#pragma once
// How a client reports: one summary line for people, and the outputs the
// RDMA binaries give (--json, --csv, --dump-samples), through the
// library's reporters where the figures are theirs.

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tcp_baseline/tcp_measurement.hpp"

namespace rdmabench::tcp {

/// "tcp pingpong 64 B: median 12.34 usec, ..." or "tcp stream ...: ... MB/s".
std::string summary_line(const Measurement& m);

/// The library's JSON of the result, plus the server's CPU and, for a
/// stream test, its connections and intervals.
nlohmann::json result_json(const Measurement& m);

/// The output files, opened before the session starts so that a bad path
/// fails at once.
class Outputs {
 public:
  explicit Outputs(const Options& o);
  /// The summary line (on stderr when the JSON goes to stdout) and every
  /// output the options asked for.
  void report(const Measurement& m);

 private:
  std::string json_path_;
  bool json_on_stdout_;
  std::unique_ptr<std::ofstream> json_, csv_, samples_;
  bool csv_header_ = true;  ///< false when --append adds to a CSV that has one
};

}  // namespace rdmabench::tcp
