#pragma once
// Command-line options shared by every benchmark binary (Boost.Program_options
// groups), turned into the library's SideConfig and TestSpec.

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "cli/output_file.hpp"
#include "rdmabench/system/clock.hpp"
#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/memory/memory.hpp"
#include "rdmabench/report/report.hpp"
#include "rdmabench/control/session.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/pacing/pacing.hpp"

namespace rdmabench::cli {

/// What a binary measures and its perftest-like defaults.
struct BenchmarkKind {
  std::string name;  ///< "rdma_write_bw"
  Operation operation;
  Measurement measurement;
  std::uint64_t default_size;
  std::uint64_t default_iterations;
  std::uint32_t default_tx_depth;
};

struct CommandLine {
  SideConfig side;
  TestSpec spec;
  bool is_client() const { return !side.server.empty(); }
  bool report_gbits = false;
  std::string json_path;     ///< "-" for stdout
  std::string samples_path;
  std::string csv_path;
  ExistingOutput existing_output = ExistingOutput::refuse;  ///< --force, --append
  std::string ready_file;  ///< server: --ready-file, written once it listens
  std::optional<BareFigure> bare_output;  ///< --output: only this number on stdout
  ClockChoice clock = ClockChoice::automatic;
  bool quiet = false;             ///< --quiet: no progress line
  Milliseconds interval{100};     ///< --interval: bandwidth over time; 0: none
  CpuPlacementRequest placement;  ///< --cpu, --numa
  std::optional<Pacing> pacing;   ///< client: --rate, --burst (open-loop latency)
  bool show_help = false;
  bool show_version = false;
  std::string help_text;
  /// Said on stderr before the run: perftest options taken that change
  /// nothing here ("-F (perftest's) is taken: ...").
  std::vector<std::string> notes;
};

/// A mistake in the options: exit status 2, message names the option.
class UsageError : public Error {
 public:
  using Error::Error;
};

/// A UsageError unless low <= value <= high (NaN is out of every range):
/// "OPTION VALUE is out of range: expected LOW to HIGH[UNIT]".
template <typename T>
void require_range(const char* option, T value, T low, T high, const char* unit = "") {
  if (!(value >= low && value <= high))
    throw UsageError(fmt::format("{} {} is out of range: expected {} to {}{}", option, value, low, high, unit));
}

/// --timeout, in seconds as every binary takes it: 0.001 to 86400.
Milliseconds timeout_option(double seconds);

CommandLine parse_command_line(const BenchmarkKind& kind, const std::vector<std::string>& args);

/// The long names of `options` (no dashes), for "did you mean".
std::vector<std::string> long_names(const boost::program_options::options_description& options);
/// Whether `name` is one of `options`: a long name, or a short letter
/// (a name of one character).
bool has_option(const boost::program_options::options_description& options, std::string_view name);

/// Parses `args` against `options` plus one positional SERVER (into
/// `server`, a client's only argument); Boost's errors become UsageErrors.
boost::program_options::variables_map parse_with_server(const std::vector<std::string>& args,
                                                        boost::program_options::options_description& options,
                                                        std::string& server);

/// "64K" -> 65536; plain bytes or K/M/G (binary) suffixes.
std::uint64_t parse_size(const std::string& text);

}  // namespace rdmabench::cli
