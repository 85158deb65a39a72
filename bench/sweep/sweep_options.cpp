#include "sweep/sweep_options.hpp"

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/options.hpp"

namespace rdmabench::sweep_cli {

namespace po = boost::program_options;
using cli::UsageError;

namespace {

struct RawSweepOptions {
  std::string pattern = "pairwise";
  std::string test = "write_bw";
  std::string size = "65536";
  std::uint64_t iterations = 5000;
  int base_port = 18515;
};

po::options_description describe_options(SweepOptions& o, RawSweepOptions& raw) {
  po::options_description d("rdma_sweep options (every rank gets the same, but for -d and --address)");
  d.add_options()
      ("help,h", po::bool_switch(&o.show_help), "print this help")
      ("ib-dev,d", po::value(&o.device), "this rank's RDMA device (required)")
      ("address", po::value(&o.address),
       "the IPv4 address the other ranks reach this rank's pair server on (default: the device's netdev IPv4)")
      ("pattern", po::value(&raw.pattern)->default_value(raw.pattern), "which pairs run: pairwise (the only one so far)")
      ("test", po::value(&raw.test)->default_value(raw.test), "what each pair measures: write_bw (the only one so far)")
      ("size,s", po::value(&raw.size)->default_value(raw.size), "message size in bytes, K/M/G suffixes")
      ("iters,n", po::value(&raw.iterations)->default_value(raw.iterations), "timed messages per pair")
      ("timeout", po::value(&o.timeout_s)->default_value(o.timeout_s), "seconds any wait for a pair's peer may last")
      ("port", po::value(&raw.base_port)->default_value(raw.base_port),
       "rank r's pair server listens on TCP port PORT + 2r")
      ("out", po::value(&o.out_dir), "folder for results.jsonl and report.md (required)")
      ("skip-same-host", po::bool_switch(&o.skip_same_host), "leave out pairs of two endpoints on one host");
  return d;
}

void apply(const RawSweepOptions& raw, SweepOptions& o) {
  if (raw.pattern != "pairwise")
    throw UsageError(fmt::format("--pattern {} is not supported yet: rdma_sweep runs pairwise only", raw.pattern));
  if (raw.test != "write_bw")
    throw UsageError(fmt::format("--test {} is not supported yet: rdma_sweep runs write_bw only", raw.test));
  if (o.device.empty()) throw UsageError("-d DEV is required: the RDMA device of this rank");
  if (o.out_dir.empty()) throw UsageError("--out DIR is required: where results.jsonl and report.md go");
  if (raw.iterations < 1) throw UsageError("-n/--iters 0 is out of range: expected at least 1");
  if (!(o.timeout_s >= 0.001 && o.timeout_s <= 86400))
    throw UsageError(fmt::format("--timeout {} is out of range: expected 0.001 to 86400 seconds", o.timeout_s));
  if (raw.base_port < 1 || raw.base_port > 65534)
    throw UsageError(fmt::format("--port {} is out of range: expected 1 to 65534", raw.base_port));
  o.base_port = static_cast<std::uint16_t>(raw.base_port);
  o.spec.operation = Operation::write;
  o.spec.measurement = Measurement::bandwidth;
  o.spec.sizes = {cli::parse_size(raw.size)};
  o.spec.iterations = raw.iterations;
}

}  // namespace

SweepOptions parse_sweep_options(const std::vector<std::string>& args) {
  SweepOptions o;
  RawSweepOptions raw;
  const auto description = describe_options(o, raw);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(description).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  std::ostringstream help;
  help << "Usage: mpirun -np N rdma_sweep -d DEV --out DIR [options]\n"
          "Each rank is one (host, device) endpoint; pairs run write_bw round by round.\n\n"
       << description;
  o.help_text = help.str();
  if (o.show_help) return o;
  apply(raw, o);
  return o;
}

std::uint16_t pair_server_port(std::uint16_t base_port, int rank, int ranks) {
  const long last = static_cast<long>(base_port) + 2L * ranks - 1;
  if (last > 65535)
    throw UsageError(fmt::format("--port {} leaves no room for {} ranks' pair servers (each takes 2 ports): "
                                 "expected at most {}", base_port, ranks, 65535 - 2L * ranks + 1));
  return static_cast<std::uint16_t>(base_port + 2 * rank);
}

}  // namespace rdmabench::sweep_cli
