#include "tcp_baseline/tcp_options.hpp"

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/options.hpp"
#include "cli/output_file.hpp"

namespace po = boost::program_options;

namespace rdmabench::tcp {

namespace {

/// Raw values, range-checked once parsed.
struct RawTcpOptions {
  std::string test = "stream", size = "64K";
  long long port = 18600, streams = 1, iterations = 10000, warmup = 100;
  double timeout_s = 10;
};

po::options_description tcp_connection_options(RawTcpOptions& raw, Options& o) {
  po::options_description connection("Connection");
  connection.add_options()
      ("port,p", po::value(&raw.port)->default_value(18600),
       "TCP port of the server, for the session and its data connections")
      ("timeout", po::value(&raw.timeout_s)->default_value(10.0), "seconds any wait for the peer may last")
      ("ready-file", po::value(&o.ready_file),
       "server: once listening, write one JSON line {\"ready\": true, ...} to FILE")
      ("bind", po::value(&o.bind_address),
       "server: listen on this address only (default: every address)");
  return connection;
}

po::options_description tcp_test_options(RawTcpOptions& raw, Options& o) {
  po::options_description test("Test");
  test.add_options()
      ("test", po::value(&raw.test), "stream (bandwidth, default) or pingpong (latency)")
      ("size,s", po::value(&raw.size), "message size in bytes, K/M/G suffixes (default 64K)")
      ("streams", po::value(&raw.streams), "stream: parallel connections, 1-64 (default 1)")
      ("duration", po::value(&o.duration_s), "stream: seconds to send (default 5)")
      ("interval", po::value(&o.interval_s), "stream: seconds per reported interval (default 0.5)")
      ("iters,n", po::value(&raw.iterations), "pingpong: timed round trips (default 10000)")
      ("warmup", po::value(&raw.warmup), "pingpong: untimed round trips first (default 100)");
  return test;
}

po::options_description tcp_output_options(Options& o) {
  po::options_description output("Output");
  output.add_options()
      ("json", po::value(&o.json_path),
       "write the result as one JSON line to FILE ('-' for stdout; the summary line then goes to stderr)")
      ("csv", po::value(&o.csv_path), "write the result as a CSV header and row to FILE")
      ("dump-samples", po::value(&o.samples_path), "pingpong: write every latency sample (usec) to FILE");
  cli::declare_existing_output_options(output, o.force, o.append);
  return output;
}

Test parse_test(const std::string& name) {
  if (name == "stream") return Test::stream;
  if (name == "pingpong") return Test::pingpong;
  throw cli::UsageError(fmt::format("--test {} is unknown: expected stream or pingpong", name));
}

/// The ranges, the test and the memory all streams' buffers take together.
void apply_tcp_options(const RawTcpOptions& raw, Options& o) {
  using cli::require_range;
  require_range("-p/--port", raw.port, 1LL, 65535LL);
  require_range("--streams", raw.streams, 1LL, static_cast<long long>(kMaxStreams));
  require_range("-n/--iters", raw.iterations, 1LL, 100'000'000LL);
  require_range("--warmup", raw.warmup, 0LL, 100'000'000LL);
  require_range("--duration", o.duration_s, 0.1, 3600.0);
  require_range("--interval", o.interval_s, 0.01, o.duration_s);
  o.timeout = cli::timeout_option(raw.timeout_s);
  o.test = parse_test(raw.test);
  o.size = cli::parse_size(raw.size);
  require_range("-s/--size", o.size, std::uint64_t{1}, kMaxBytesInFlight);
  const auto streams = static_cast<std::uint64_t>(raw.streams);
  if (o.size * streams > kMaxBytesInFlight)
    throw cli::UsageError(fmt::format("--streams {} of -s/--size {} need {} bytes of buffers; at most {} "
                                      "in all: give fewer streams or a smaller size",
                                      streams, o.size, o.size * streams, kMaxBytesInFlight));
  if (!o.samples_path.empty() && o.test != Test::pingpong)
    throw cli::UsageError("--dump-samples applies to --test pingpong; a stream test keeps no per-message samples");
  o.port = static_cast<std::uint16_t>(raw.port);
  o.streams = static_cast<std::uint32_t>(raw.streams);
  o.iterations = static_cast<std::uint64_t>(raw.iterations);
  o.warmup = static_cast<std::uint64_t>(raw.warmup);
}

}  // namespace

Options parse_tcp_command_line(const std::vector<std::string>& args) {
  RawTcpOptions raw;
  Options o;
  po::options_description general("General");
  general.add_options()
      ("help,h", po::bool_switch(&o.show_help), "show this help")
      ("version", po::bool_switch(&o.show_version), "show the version");
  po::options_description all;
  all.add(tcp_connection_options(raw, o)).add(tcp_test_options(raw, o)).add(tcp_output_options(o)).add(general);
  po::options_description parsed;
  parsed.add(all);
  const po::variables_map vm = cli::parse_with_server(args, parsed, o.server);
  std::ostringstream help;
  help << "Usage: tcp_baseline [options]            (server: one session, then exit)\n"
          "       tcp_baseline [options] SERVER     (client)\n" << all;
  o.help_text = help.str();
  if (o.show_help || o.show_version) return o;
  apply_tcp_options(raw, o);
  return o;
}

}  // namespace rdmabench::tcp
