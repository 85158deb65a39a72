#pragma once
// tcp_baseline's command line, parsed with the machinery, spellings and
// messages of the RDMA pair binaries (cli/options.hpp): a mistake is a
// cli::UsageError (exit status 2) naming the option and what would be right.

#include <cstdint>
#include <string>
#include <vector>

#include "rdmabench/control/bootstrap.hpp"

namespace rdmabench::tcp {

/// What a session measures; the codes cross the wire in its header.
enum class Test : std::uint32_t { stream = 1, pingpong = 2 };

/// Buffers of all streams together, on either side (1 GiB).
inline constexpr std::uint64_t kMaxBytesInFlight = std::uint64_t{1} << 30;
/// Parallel connections of a stream test.
inline constexpr std::uint32_t kMaxStreams = 64;
/// Ping-pong round trips in one run, warm-up and timed together (-n and
/// --warmup at most 10^8 each): with -s at most kMaxBytesInFlight, the
/// bytes they move fit 64 bits.
inline constexpr std::uint64_t kMaxRoundTrips = 200'000'000;

struct Options {
  std::string server;  ///< empty: be the server
  std::uint16_t port = 18600;
  Test test = Test::stream;
  std::uint32_t streams = 1;
  std::uint64_t size = 65536;
  std::uint64_t iterations = 10000;  ///< ping-pong round trips (timed)
  std::uint64_t warmup = 100;        ///< ping-pong round trips (untimed)
  double duration_s = 5, interval_s = 0.5;
  Milliseconds timeout{10000};
  std::string json_path;  ///< "-" for stdout (the summary line then goes to stderr)
  bool force = false, append = false;  ///< --force, --append: what to do with output files that hold something
  std::string csv_path, samples_path;
  std::string ready_file;  ///< server: written once it listens (cli/ready_file.hpp)
  std::string bind_address;  ///< server: listen on this address only; empty: every address
  bool show_help = false;
  bool show_version = false;
  std::string help_text;
  bool is_client() const { return !server.empty(); }
};

/// The options of `args` (argv without the program name).
Options parse_tcp_command_line(const std::vector<std::string>& args);

}  // namespace rdmabench::tcp
