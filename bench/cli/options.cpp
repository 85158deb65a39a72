#include "cli/options.hpp"
#include "cli/perftest_spellings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <limits>
#include <sstream>

#include "cli/combinations.hpp"
#include "cli/side_options.hpp"
#include "cli/soak_options.hpp"
#include "cli/table_options.hpp"

namespace po = boost::program_options;

namespace rdmabench::cli {

std::uint64_t parse_size(const std::string& text) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw std::invalid_argument("");
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    throw UsageError(fmt::format("invalid size '{}': expected bytes such as 4096, 64K or 8M", text));
  }
  const std::string suffix = text.substr(used);
  int shift = 0;
  if (suffix == "K" || suffix == "k" || suffix == "KiB") shift = 10;
  else if (suffix == "M" || suffix == "MiB") shift = 20;
  else if (suffix == "G" || suffix == "GiB") shift = 30;
  else if (!suffix.empty() && suffix != "B")
    throw UsageError(fmt::format("invalid size '{}': unknown suffix '{}' (use K, M or G)", text, suffix));
  if (value > (std::numeric_limits<std::uint64_t>::max() >> shift))
    throw UsageError(fmt::format("size '{}' is too large", text));
  return value << shift;
}

Milliseconds timeout_option(double seconds) {
  require_range("--timeout", seconds, 0.001, 86400.0, " seconds");
  return Milliseconds(static_cast<long long>(seconds * 1000));
}

namespace {

/// Raw values of the options not taken from the table of test parameters.
struct RawOptions {
  std::string rate;
  long long burst = -1;
  bool force = false, append = false;  ///< --force, --append
  std::string device, size, clock = "auto", output;
  int ib_port = 1;
  long long gid_index = -1;
  int tcp_port = 18515;
  double timeout_s = 10;
  long long interval_ms = 100;
  SoakRaw soak;
};

/// The spec a binary runs when no option changes it.
TestSpec kind_defaults(const BenchmarkKind& kind) {
  TestSpec spec;
  spec.operation = kind.operation;
  spec.measurement = kind.measurement;
  spec.sizes = {kind.default_size};
  spec.iterations = kind.default_iterations;
  spec.tx_depth = kind.default_tx_depth;
  return spec;
}

// ---------------------------------------------------------------- groups

po::options_description device_options(RawOptions& raw, const TestSpec& defaults, po::options_description& hidden) {
  po::options_description device("Device");
  device.add_options()
      ("ib-dev,d", po::value(&raw.device), "RDMA device (default: the first; with -R: the one rdma_cm routes to)")
      ("ib-port,i", po::value(&raw.ib_port)->default_value(1), "port of the device")
      ("gid-index,x", po::value(&raw.gid_index), "GID index (default: RoCEv2 GID of the peer's address family)");
  declare_side_options(device, hidden, SideGroup::device, defaults);
  return device;
}

po::options_description connection_options(RawOptions& raw, CommandLine& cl, const TestSpec& defaults,
                                           po::options_description& hidden) {
  po::options_description connection("Connection");
  connection.add_options()
      ("port,p", po::value(&raw.tcp_port)->default_value(18515), "TCP control port (rdma_cm uses port + 1)")
      ("rdma-cm,R", po::bool_switch(), "connect the QPs with rdma_cm (automatic on iWARP)")
      ("timeout", po::value(&raw.timeout_s)->default_value(10.0),
       "seconds any wait for the peer may last, and the silence after which a peer counts as gone")
      ("bind", po::value(&cl.side.bind_address),
       "server: listen on this address only, for the TCP port and rdma_cm (default: every address)")
      ("ready-file", po::value(&cl.ready_file),
       "server: once listening, write a JSON line (ready, pid, tcp_port, rdma_cm_port) to FILE, for scripts");
  declare_table_options(connection, hidden, OptionGroup::connection, defaults);
  return connection;
}

po::options_description test_options(RawOptions& raw, const TestSpec& defaults,
                                     po::options_description& hidden) {
  po::options_description test("Test");
  test.add_options()
      ("size,s", po::value(&raw.size), fmt::format("message size in bytes, K/M/G suffixes (default {})", defaults.sizes.front()).c_str())
      ("all,a", po::bool_switch(), "sweep sizes 2 B to 8 MiB, powers of two")
      ("rate", po::value(&raw.rate),
       "client: send at rate R on a fixed schedule. Bandwidth tests (not with -b): 10Gbps, 500MBps, "
       "200kpps, ...; the report gives the achieved rate beside it. Latency tests: open loop, R "
       "messages per second (a bare number, or 200kpps, 1Mpps, ...), up to -t in flight (default 16 "
       "with --rate), each latency counted from the message's intended send time; the send and write "
       "servers answer each message as it arrives (writes carry immediate data: not on iWARP)")
      ("burst", po::value(&raw.burst), "with --rate: at most this many messages leave at once when "
       "catching up after a stall (default 1)");
  declare_soak_options(test, raw.soak);
  declare_table_options(test, hidden, OptionGroup::test, defaults);
  return test;
}

po::options_description memory_options(const TestSpec& defaults, po::options_description& hidden) {
  po::options_description memory("Memory");
  declare_side_options(memory, hidden, SideGroup::memory, defaults);
  return memory;
}

po::options_description placement_options(const TestSpec& defaults, po::options_description& hidden) {
  po::options_description placement("CPU placement");
  declare_side_options(placement, hidden, SideGroup::placement, defaults);
  declare_table_options(placement, hidden, OptionGroup::placement, defaults);
  return placement;
}

po::options_description output_options(RawOptions& raw, CommandLine& cl, const TestSpec& defaults,
                                       po::options_description& hidden) {
  po::options_description output("Output");
  declare_table_options(output, hidden, OptionGroup::output, defaults);
  // Parsed everywhere, shown where it applies: a latency binary refuses it by name.
  (defaults.measurement == Measurement::bandwidth ? output : hidden).add_options()
      ("report-gbits", po::bool_switch(&cl.report_gbits), "bandwidth in Gb/s instead of MB/s (10^6 B/s)")
      ("interval", po::value(&raw.interval_ms)->default_value(100),
       "bandwidth over time: the rate of every MS milliseconds of the timed part, with its minimum, "
       "p1, p50 and spread beside the average (JSON keeps the series); 0: none");
  output.add_options()
      ("json", po::value(&cl.json_path), "write JSON Lines to FILE ('-' for stdout; the table then goes to stderr)")
      ("dump-samples", po::value(&cl.samples_path), "write every latency sample (usec) to FILE")
      ("csv", po::value(&cl.csv_path), "write one CSV row per size to FILE")
      ("output", po::value(&raw.output), "print only one number per size: bandwidth, message_rate or latency")
      ("clock", po::value(&raw.clock)->default_value("auto"), "timestamps: auto, tsc or monotonic (clock_gettime)")
      ("quiet", po::bool_switch(&cl.quiet), "no progress line on the terminal (shown for a client sweeping sizes or timing with -D)");
  declare_existing_output_options(output, raw.force, raw.append);
  return output;
}

// ---------------------------------------------------------- group values

/// --interval: 0, or 10 ms (a rate over less is mostly the clock's and the
/// completions' granularity) to 10 minutes.
void apply_interval(const RawOptions& raw, const po::variables_map& vm, const BenchmarkKind& kind,
                    CommandLine& cl) {
  if (!vm["interval"].defaulted() && kind.measurement != Measurement::bandwidth)
    throw UsageError(fmt::format("--interval applies to the bandwidth tests; {} keeps every latency sample instead",
                                 kind.name));
  if (raw.interval_ms != 0) require_range("--interval", raw.interval_ms, 10LL, 600'000LL, " ms (or 0: none)");
  cl.interval = Milliseconds(raw.interval_ms);
}

/// Device and connection: ranges fixed by the protocol; device limits are
/// checked against the device once it is open.
void apply_device_options(const RawOptions& raw, const po::variables_map& vm, CommandLine& cl) {
  require_range("-i/--ib-port", raw.ib_port, 1, 255);
  require_range("-p/--port", raw.tcp_port, 1, 65534);
  if (vm.count("gid-index")) {
    require_range("-x/--gid-index", raw.gid_index, 0LL, 65535LL);
    cl.side.gid_index = static_cast<std::uint32_t>(raw.gid_index);
  }
  cl.side.device = raw.device;
  cl.side.port = static_cast<std::uint8_t>(raw.ib_port);
  cl.side.tcp_port = static_cast<std::uint16_t>(raw.tcp_port);
  cl.side.timeout = timeout_option(raw.timeout_s);
  cl.spec.connect = vm["rdma-cm"].as<bool>() ? ConnectMethod::rdma_cm : ConnectMethod::tcp_exchange;
}

/// The clock: how this side stamps.
void apply_clock(const RawOptions& raw, CommandLine& cl) {
  if (raw.clock == "auto") cl.clock = ClockChoice::automatic;
  else if (raw.clock == "tsc") cl.clock = ClockChoice::tsc;
  else if (raw.clock == "monotonic") cl.clock = ClockChoice::monotonic;
  else throw UsageError(fmt::format("--clock {} is unknown: expected auto, tsc or monotonic", raw.clock));
}

/// Sizes (-s, -a; atomics have one) and the warm-up that follows from them.
void apply_sizes(const RawOptions& raw, const po::variables_map& vm, const BenchmarkKind& kind,
                 TestSpec& spec) {
  const bool sweep = vm["all"].as<bool>();
  if (kind.operation == Operation::atomic) {
    if (sweep) throw UsageError("-a/--all does not apply to atomics, which always move 8 bytes");
    if (vm.count("size") && parse_size(raw.size) != kAtomicBytes)
      throw UsageError(fmt::format("-s/--size {} is invalid for atomics: they always move 8 bytes", raw.size));
  }
  if (sweep && vm.count("size"))
    throw UsageError("-s/--size and -a/--all conflict: give one size with -s, or sweep all with -a");
  if (sweep) {
    spec.sizes = all_sizes();
  } else if (vm.count("size")) {
    spec.sizes = {parse_size(raw.size)};
    if (spec.sizes[0] == 0) throw UsageError("-s/--size 0 is invalid: a message carries at least 1 byte");
  }
  if (!given(vm, "warmup")) {
    spec.warmup = kind.measurement == Measurement::latency ? 100 : spec.tx_depth;
    // A bandwidth sweep warms up before its first size only: each later size
    // follows the previous one on warm queue pairs, and an average over many
    // messages barely feels a cold first one. Latency keeps warming every
    // size, since its tail percentiles would show the cold messages.
    spec.warmup_each_size = !(sweep && kind.measurement == Measurement::bandwidth);
  }
  if (spec.duration_s) spec.warmup = 0;  // a timed run leaves out its first tenth instead
}

/// Where --rate applies: every latency test runs open loop (the send and
/// write servers then echo each message), and the bandwidth tests get a
/// paced sender, whose server is passive or only receives.
void check_pacing_applies(const BenchmarkKind& kind, const CommandLine& cl) {
  const bool bandwidth = kind.measurement == Measurement::bandwidth;
  if (!cl.is_client())
    throw UsageError(fmt::format("--rate applies to the client, which sends on the schedule; the server "
                                 "of {} follows the client and paces nothing: drop it there",
                                 kind.name));
  // Both sides send with -b, and the server has no schedule to keep.
  if (bandwidth && cl.spec.bidirectional)
    throw UsageError("--rate paces only the client's sending, and with -b the server sends too at full "
                     "speed: drop -b for a paced run, or --rate for a bidirectional one");
}

/// --rate and --burst, on the client that sends.
void apply_pacing(const RawOptions& raw, const po::variables_map& vm, const BenchmarkKind& kind, CommandLine& cl) {
  if (raw.rate.empty()) {
    if (raw.burst != -1) throw UsageError("--burst applies with --rate; give both, or neither");
    return;
  }
  check_pacing_applies(kind, cl);
  Pacing pacing;
  try {
    pacing.rate = parse_rate(raw.rate);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (raw.burst != -1) require_range("--burst", raw.burst, 1LL, 65536LL);
  pacing.burst = raw.burst == -1 ? 1 : static_cast<std::uint64_t>(raw.burst);
  // Open-loop latency: one in flight would make a stall hold back the
  // schedule behind it, as a closed loop does; the depth bounds how far the
  // run may run ahead. Bandwidth keeps its -t, which already allows many.
  if (kind.measurement == Measurement::latency && !given(vm, "tx_depth")) cl.spec.tx_depth = 16;
  // The hello carries it: a send or write latency server answers each
  // message as it arrives instead of taking turns.
  cl.spec.open_loop = kind.measurement == Measurement::latency;
  cl.pacing = pacing;
}

/// --load-qps, --load-size and --load-op: the background load of a latency
/// test, chosen by the client (the server adopts it from the hello). Where
/// the load cannot run at all, find_unsupported says so.
void apply_load(const po::variables_map& vm, const BenchmarkKind& kind, CommandLine& cl) {
  const bool load = cl.spec.load_queue_pairs != 0;
  // Outside latency tests the applicability check names them instead.
  if (!load && kind.measurement == Measurement::latency && (given(vm, "load_size") || given(vm, "load_op")))
    throw UsageError("--load-size and --load-op shape the load of --load-qps; give --load-qps N with "
                     "them, or drop them");
  if (load && kind.measurement == Measurement::latency && !cl.is_client())
    throw UsageError(fmt::format("--load-qps applies to the client, which runs the load; the server "
                                 "of {} learns it from the client's hello: drop it there",
                                 kind.name));
}

/// -g/--mcg runs over UD, as perftest's ("MultiCast runs on UD!"): without
/// -c it is UD; another -c is refused (find_unsupported). -M/--mgid names
/// the group of such a run, and means nothing without -g.
void apply_multicast(const po::variables_map& vm, CommandLine& cl) {
  if (cl.spec.multicast_receivers && !given(vm, "qp_type")) cl.spec.qp_type = QpType::ud;
  if (cl.side.multicast_group && !cl.spec.multicast_receivers)
    throw UsageError("-M/--mgid names the group of a multicast run: add -g/--mcg, or drop -M");
}

/// --output: the one figure this kind of test can print.
void apply_bare_output(const RawOptions& raw, const BenchmarkKind& kind, CommandLine& cl) {
  if (raw.output.empty()) return;
  const bool latency = kind.measurement == Measurement::latency;
  if (raw.output == "latency" && latency) cl.bare_output = BareFigure::latency;
  else if (raw.output == "bandwidth" && !latency) cl.bare_output = BareFigure::bandwidth;
  else if (raw.output == "message_rate" && !latency) cl.bare_output = BareFigure::message_rate;
  else
    throw UsageError(fmt::format("--output {} does not fit {}: expected {}", raw.output, kind.name,
                                 latency ? "latency" : "bandwidth or message_rate"));
}

}  // namespace

po::variables_map parse_with_server(const std::vector<std::string>& args, po::options_description& options,
                                    std::string& server) {
  options.add_options()("server", po::value(&server));
  po::positional_options_description positional;
  positional.add("server", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    const std::string nearest = nearest_option(e.get_option_name(), long_names(options));
    throw UsageError(nearest.empty() ? e.what() : fmt::format("{} (did you mean {}?)", e.what(), nearest));
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

std::vector<std::string> long_names(const po::options_description& options) {
  std::vector<std::string> names;
  for (const auto& option : options.options())
    if (!option->long_name().empty() && option->long_name() != "server") names.push_back(option->long_name());
  return names;
}

bool has_option(const po::options_description& options, std::string_view name) {
  for (const auto& option : options.options()) {
    if (option->long_name() == name) return true;
    const std::string shown = option->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (name.size() == 1 && shown.size() == 2 && shown[0] == '-' && shown[1] == name[0]) return true;
  }
  return false;
}

CommandLine parse_command_line(const BenchmarkKind& kind, const std::vector<std::string>& args) {
  RawOptions raw;
  CommandLine cl;
  const TestSpec defaults = kind_defaults(kind);
  po::options_description general("General");
  general.add_options()
      ("help,h", po::bool_switch(&cl.show_help), "show this help")
      ("version", po::bool_switch(&cl.show_version), "show the version");
  // What --help shows, and what is parsed besides: the table's options
  // that do not apply to this binary, so that it refuses them by name.
  po::options_description all, hidden;
  all.add(device_options(raw, defaults, hidden)).add(connection_options(raw, cl, defaults, hidden))
      .add(test_options(raw, defaults, hidden)).add(memory_options(defaults, hidden))
      .add(placement_options(defaults, hidden)).add(output_options(raw, cl, defaults, hidden)).add(general);
  po::options_description parsed;
  parsed.add(all).add(hidden);
  // perftest's spellings become ours first (cli/perftest_spellings.hpp).
  Rewritten ours = rewrite_perftest_spellings(args, [&](std::string_view name) { return has_option(parsed, name); });
  cl.notes = std::move(ours.notes);
  const po::variables_map vm = parse_with_server(ours.args, parsed, cl.side.server);
  std::ostringstream help;
  help << "Usage: " << kind.name << " [options]            (server)\n"
       << "       " << kind.name << " [options] SERVER     (client)\n" << all
       << perftest_spellings_help();
  cl.help_text = help.str();
  if (cl.show_help || cl.show_version) return cl;

  cl.spec = defaults;
  apply_device_options(raw, vm, cl);
  apply_side_options(vm, kind.name, cl);
  apply_clock(raw, cl);
  cl.existing_output = existing_output(raw.force, raw.append);
  apply_table_options(vm, cl.spec);
  apply_multicast(vm, cl);
  apply_sizes(raw, vm, kind, cl.spec);
  apply_load(vm, kind, cl);
  apply_bare_output(raw, kind, cl);
  if (cl.report_gbits && kind.measurement != Measurement::bandwidth)
    throw UsageError(fmt::format("--report-gbits applies to the bandwidth tests; {} reports latency in usec",
                                 kind.name));
  apply_interval(raw, vm, kind, cl);
  apply_soak_options(vm, raw.soak, cl);
  apply_pacing(raw, vm, kind, cl);
  check_combinations(kind, vm, cl);
  return cl;
}

}  // namespace rdmabench::cli
