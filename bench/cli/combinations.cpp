#include "cli/combinations.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include "cli/table_options.hpp"

namespace po = boost::program_options;

namespace rdmabench::cli {

namespace {

/// What the table's applicability does not say: a value that rules out
/// another option.
void check_applicability(const BenchmarkKind& kind, const TestSpec& spec) {
  if (spec.validate && kind.operation == Operation::atomic)
    throw UsageError("--validate checks data transfers; atomics move no buffer to check");
}

/// A timed run (-D) against the options of a counted one.
void check_duration(const po::variables_map& vm, const CommandLine& cl) {
  if (!given(vm, "duration_s")) return;
  if (given(vm, "iterations"))
    throw UsageError("-D/--duration and -n/--iters conflict: a run is either timed or counted; give one");
  if (vm["all"].as<bool>())
    throw UsageError("-D/--duration and -a/--all conflict: a timed run measures one size; give -s");
  if (given(vm, "warmup"))
    throw UsageError("-D/--duration and --warmup conflict: a timed run leaves out its first tenth "
                     "instead of counted warm-up messages");
  if (!cl.samples_path.empty())
    throw UsageError("-D/--duration and --dump-samples conflict: a timed run keeps a histogram, "
                     "not every sample; use -n to keep them");
}

/// Where the results go.
void check_outputs(const BenchmarkKind& kind, const CommandLine& cl) {
  if (cl.bare_output && cl.json_path == "-")
    throw UsageError("--output and --json - both want stdout; write the JSON to a file");
  if (!cl.samples_path.empty() && kind.measurement != Measurement::latency)
    throw UsageError("--dump-samples applies to latency tests; " + kind.name + " keeps no per-message samples");
  if (!cl.ready_file.empty() && cl.is_client())
    throw UsageError("--ready-file applies to the server, which listens; drop it on the client");
  if (!cl.side.bind_address.empty() && cl.is_client())
    throw UsageError("--bind applies to the server, which listens; the client names the server's "
                     "address instead");
}

/// --source-ip: a client's, and a numeric address (whether it is this
/// host's is checked when the client starts).
void check_source_address(const CommandLine& cl) {
  const std::string& source = cl.side.source_address;
  if (source.empty()) return;
  if (!cl.is_client())
    throw UsageError("--source-ip applies to the client, which connects; a server answers from the "
                     "address its client reached, and --bind limits which ones it listens on");
  in6_addr any;
  if (::inet_pton(AF_INET, source.c_str(), &any) != 1 && ::inet_pton(AF_INET6, source.c_str(), &any) != 1)
    throw UsageError(fmt::format("--source-ip {} is not a numeric IP address: give one of this host's, "
                                 "such as 10.0.2.15 or 2001:db8::15",
                                 source));
}

}  // namespace

void check_combinations(const BenchmarkKind& kind, const po::variables_map& vm, const CommandLine& cl) {
  check_table_applicability(vm, kind.name, cl.spec);
  check_applicability(kind, cl.spec);
  // The same range rules a server applies to a client's hello, here for the
  // limits one option sets another (-l and -Q within -t, -r for send_lat).
  if (auto problem = find_out_of_range(cl.spec)) throw UsageError(*problem);
  check_duration(vm, cl);
  check_outputs(kind, cl);
  check_source_address(cl);
  if (auto problem = find_unsupported(cl.spec)) throw UsageError(*problem);
}

}  // namespace rdmabench::cli
