#include "sweep/sweep_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <sstream>

#include "cli/benchmark_kinds.hpp"
#include "cli/options.hpp"

namespace rdmabench::sweep_cli {

namespace po = boost::program_options;
using cli::UsageError;

namespace {

struct RawSweepOptions {
  std::string device, devices, addresses, tests = "write_bw", pattern = "pairwise", out, resume, baseline;
  std::vector<std::string> baseline_thresholds;
  int base_port = 18515;
  int root = 0, repeat = 1;
  std::uint64_t seed = 1;
  std::optional<double> min_gbps, min_line_rate, max_p99_us;
  std::vector<std::string> max_counters;
  bool no_retest = false;
  bool no_heatmaps = false;
};

po::options_description sweep_description(SweepOptions& o, RawSweepOptions& raw) {
  po::options_description d("rdma_sweep's own options (every rank is given the same)");
  d.add_options()
      ("help,h", po::bool_switch(&o.show_help), "print this help")
      ("version", po::bool_switch(&o.show_version), "show the version and the rdma-core it was built against")
      ("ib-dev,d", po::value(&raw.device), "the RDMA device of every rank (one rail)")
      ("devices", po::value(&raw.devices),
       "comma-separated: local rank k of each host uses the k-th device; rail k is the k-th device of every host")
      ("device-per-local-rank", po::bool_switch(&o.device.per_local_rank),
       "local rank k uses its host's k-th RDMA device by name (with --devices: the k-th of that list)")
      ("addresses", po::value(&raw.addresses),
       "comma-separated: local rank k uses the k-th IP address (its GID and rdma_cm address); "
       "default: the first IPv4 address of the device's interface")
      ("test", po::value(&raw.tests)->default_value(raw.tests),
       "comma-separated tests each pair runs, in order: write_bw, write_lat, send_lat, read_lat, ...")
      ("pattern", po::value(&raw.pattern)->default_value(raw.pattern),
       "pairwise, ring, incast, all-to-all or bisection")
      ("root", po::value(&raw.root)->default_value(raw.root), "incast: the rank every rail's pairs send to")
      ("repeat", po::value(&raw.repeat)->default_value(raw.repeat), "bisection: how many random splits")
      ("seed", po::value(&raw.seed)->default_value(raw.seed), "bisection: the splits' seed")
      ("cross-rail", po::bool_switch(&o.schedule.pairing.cross_rail), "pair devices of different rails too")
      ("skip-same-host", po::bool_switch(&o.schedule.pairing.skip_same_host),
       "leave out pairs of two endpoints on one host")
      ("min-gbps", po::value<double>(), "bandwidth tests: a pair below this many Gb/s fails")
      ("min-line-rate", po::value<double>(), "bandwidth tests: a pair below this share (0-1] of the port's rate fails")
      ("max-p99-us", po::value<double>(), "latency tests: a pair whose p99 exceeds this many us fails")
      ("min-share-of-median", po::value(&o.limits.min_share_of_median)->default_value(o.limits.min_share_of_median),
       "bandwidth tests: a pair below this share of the median pair fails")
      ("max-p99-multiple", po::value(&o.limits.max_p99_multiple)->default_value(o.limits.max_p99_multiple),
       "latency tests: a pair whose p99 exceeds this multiple of the best pair's fails")
      ("max-counter", po::value(&raw.max_counters)->composing(),
       "NAME=N, NAME=Nppm or NAME=off, repeatable or comma-separated: a pair within its limits whose counter NAME "
       "moved more than N at either end (Nppm: N per million packets through that end) is a silent degrader; "
       "replaces NAME's default (see docs/sweep.md for the defaults)")
      ("no-retest", po::bool_switch(&raw.no_retest),
       "skip the second pass that measures the failing pairs' ends against known-good partners")
      ("no-heatmaps", po::bool_switch(&raw.no_heatmaps),
       "write the CSVs and reports but draw no PNG heatmaps (matplotlib takes a while on slow hosts)")
      ("timeout", po::value(&o.timeout_s)->default_value(o.timeout_s),
       "seconds any wait for a peer may last; a pair that waits longer fails, a rank silent longer ends the sweep")
      ("port", po::value(&raw.base_port)->default_value(raw.base_port),
       "with rdma_cm (-R, iWARP): rank r's n-th pair of a round listens on PORT + 2(r + n x ranks) + 1")
      ("out", po::value(&raw.out), "folder for results.jsonl, the CSVs, heatmaps and reports (required)")
      ("resume", po::value(&raw.resume), "continue the sweep in this folder: pairs in its results.jsonl are skipped")
      ("baseline", po::value(&raw.baseline),
       "an earlier sweep's --out folder: the report marks the pairs whose judged figure moved past the threshold "
       "against the same pairs there, with a heatmap of the change")
      ("baseline-threshold", po::value(&raw.baseline_thresholds)->composing(),
       "NAME=P%[,...] as rdma_compare's --threshold: how far a pair's figure may move against the baseline "
       "(defaults: bw=3%, p99=10%, median=5%; see docs/compare.md)");
  return d;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

void check_limit(const po::variables_map& vm, const char* name, double low, double high,
                 std::optional<double>& into) {
  if (!vm.count(name)) return;
  const double value = vm[name].as<double>();
  if (!(value > low && value <= high))
    throw UsageError(fmt::format("--{} {} is out of range: expected more than {} and at most {}", name, value, low, high));
  into = value;
}

void apply_counter_limits(const RawSweepOptions& raw, SweepOptions& o) {
  std::vector<sweep::CounterLimitSetting> settings;
  for (const std::string& option : raw.max_counters)
    for (const std::string& item : split_list(option)) {
      try {
        settings.push_back(sweep::parse_counter_limit(item));
      } catch (const Error& e) {
        throw UsageError(fmt::format("--max-counter {}: {}", item, e.what()));
      }
    }
  o.counter_limits = sweep::with_settings(sweep::default_counter_limits(), settings);
}

void apply_baseline(const RawSweepOptions& raw, SweepOptions& o) {
  if (raw.baseline.empty()) {
    if (!raw.baseline_thresholds.empty()) throw UsageError("--baseline-threshold needs --baseline DIR");
    return;
  }
  std::error_code error;
  if (std::filesystem::equivalent(raw.baseline, o.out_dir, error))
    throw UsageError(fmt::format("--baseline {} is this sweep's own folder: give an earlier sweep's --out folder",
                                 raw.baseline));
  o.baseline_dir = raw.baseline;
  for (const std::string& spec : raw.baseline_thresholds) {
    try {
      o.baseline_thresholds.apply(spec);
    } catch (const Error& e) {
      throw UsageError("--baseline-threshold: " + std::string(e.what()));
    }
  }
}

void apply_devices(const RawSweepOptions& raw, SweepOptions& o) {
  if (!raw.device.empty() && !raw.devices.empty()) throw UsageError("give -d or --devices, not both");
  o.device.devices = raw.device.empty() ? split_list(raw.devices) : std::vector<std::string>{raw.device};
  if (o.device.devices.empty() && !o.device.per_local_rank)
    throw UsageError("no device: give -d DEV, --devices DEV0,DEV1,... or --device-per-local-rank");
  o.device.addresses = split_list(raw.addresses);
}

void apply_sweep(const po::variables_map& vm, const RawSweepOptions& raw, SweepOptions& o) {
  apply_devices(raw, o);
  o.tests = split_list(raw.tests);
  if (o.tests.empty()) throw UsageError("--test names no test: expected e.g. write_bw,write_lat");
  for (auto& test : o.tests) test = std::string(cli::benchmark_kind(test).name).substr(5);
  try {
    o.schedule.pattern = sweep::parse_pattern(raw.pattern);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (raw.repeat < 1 || raw.repeat > 1000)
    throw UsageError(fmt::format("--repeat {} is out of range: expected 1 to 1000", raw.repeat));
  o.schedule.root_rank = raw.root;
  o.schedule.repeat = raw.repeat;
  o.schedule.seed = raw.seed;
  check_limit(vm, "min-gbps", 0, 1e6, o.limits.min_gbps);
  check_limit(vm, "min-line-rate", 0, 1, o.limits.min_line_rate);
  check_limit(vm, "max-p99-us", 0, 1e9, o.limits.max_p99_us);
  if (!(o.limits.min_share_of_median >= 0 && o.limits.min_share_of_median < 1))
    throw UsageError(fmt::format("--min-share-of-median {} is out of range: expected 0 (off) up to below 1",
                                 o.limits.min_share_of_median));
  if (!(o.limits.max_p99_multiple >= 1))
    throw UsageError(fmt::format("--max-p99-multiple {} is out of range: expected 1 or more", o.limits.max_p99_multiple));
  if (!(o.timeout_s >= 0.1 && o.timeout_s <= 3600))
    throw UsageError(fmt::format("--timeout {} is out of range: expected 0.1 to 3600 seconds", o.timeout_s));
  if (raw.base_port < 1 || raw.base_port > 65000)
    throw UsageError(fmt::format("--port {} is out of range: expected 1 to 65000", raw.base_port));
  o.base_port = static_cast<std::uint16_t>(raw.base_port);
  if (!raw.out.empty() && !raw.resume.empty() && raw.out != raw.resume)
    throw UsageError("--out and --resume name different folders: --resume DIR continues in DIR, give one of them");
  o.resume = !raw.resume.empty();
  o.out_dir = o.resume ? raw.resume : raw.out;
  if (o.out_dir.empty()) throw UsageError("--out DIR is required: where results.jsonl and the reports go");
  apply_counter_limits(raw, o);
  apply_baseline(raw, o);
  o.retest = !raw.no_retest;
  o.heatmaps = !raw.no_heatmaps;
}

/// Options the sweep sets per rank or writes itself: given through, they
/// would contradict it. The rest each test's own parser checks, now, so a
/// mistake is told before any rank starts.
void check_pair_options(const SweepOptions& o) {
  for (const auto& arg : o.pair_args) {
    const std::string name = arg.substr(0, arg.find('='));
    for (const char* owned : {"--json", "--csv", "--output", "--dump-samples", "--ready-file", "--bind", "-p",
                              "--server", "--host", "-x", "--gid-index", "-i", "--ib-port"})
      if (name == owned)
        throw UsageError(fmt::format("{} is not an rdma_sweep option: the sweep chooses it for each rank and "
                                     "writes its results to --out", name));
  }
  for (const auto& test : o.tests) {
    cli::CommandLine cl;
    try {
      cl = cli::parse_command_line(cli::benchmark_kind(test), pair_arguments(o, "any"));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--test {}: {}", test, e.what()));
    }
    if (cl.is_client())
      throw UsageError(fmt::format("unexpected argument '{}': rdma_sweep takes no server address, every rank is "
                                   "one endpoint (see --help)", cl.side.server));
    if (cl.spec.sizes.size() != 1)
      throw UsageError("-a/--all is not for sweeps: a sweep measures one size per test (give -s)");
  }
}

}  // namespace

SweepOptions parse_sweep_options(const std::vector<std::string>& args) {
  SweepOptions o;
  RawSweepOptions raw;
  const auto description = sweep_description(o, raw);
  po::variables_map vm;
  try {
    auto parsed = po::command_line_parser(args).options(description).allow_unregistered().run();
    po::store(parsed, vm);
    po::notify(vm);
    o.pair_args = po::collect_unrecognized(parsed.options, po::include_positional);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  std::ostringstream help;
  help << "Usage: mpirun -np N rdma_sweep (-d DEV | --devices DEV0,DEV1,...) --out DIR [options]\n"
          "       srun -N NODES --ntasks-per-node=K rdma_sweep ...\n"
          "Each rank is one (host, device) endpoint. Pairs run the suite's own tests round by round;\n"
          "MPI only coordinates. Options of the pair benchmarks (-s, -n, -D, -q, --mem, -R, ...) are\n"
          "passed to every --test as they are (cuda:auto: the GPU nearest each rank's device).\n\n"
       << description;
  o.help_text = help.str();
  if (o.show_help || o.show_version) return o;
  apply_sweep(vm, raw, o);
  check_pair_options(o);
  return o;
}

std::vector<std::string> pair_arguments(const SweepOptions& options, const std::string& device) {
  std::vector<std::string> args = options.pair_args;
  args.insert(args.end(), {"-d", device, "--timeout", fmt::format("{}", options.timeout_s)});
  return args;
}

std::string device_for_local_rank(const DeviceChoice& choice, int local_rank,
                                  const std::vector<std::string>& host_devices) {
  const auto& list = choice.devices.empty() ? host_devices : choice.devices;
  const bool one_for_all = choice.devices.size() == 1 && !choice.per_local_rank;
  if (one_for_all) return list.front();
  if (local_rank < 0 || static_cast<std::size_t>(local_rank) >= list.size())
    throw UsageError(fmt::format("local rank {} has no device: {} names {} ({}); run at most {} ranks per host "
                                 "(--map-by ppr:{}:node, --ntasks-per-node={})",
                                 local_rank, choice.devices.empty() ? "this host has" : "--devices", list.size(),
                                 fmt::join(list, ","), list.size(), list.size(), list.size()));
  return list[static_cast<std::size_t>(local_rank)];
}

int rail_for_local_rank(const DeviceChoice& choice, int local_rank) {
  return choice.devices.size() == 1 && !choice.per_local_rank ? 0 : local_rank;
}

}  // namespace rdmabench::sweep_cli
