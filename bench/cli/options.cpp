#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <limits>
#include <sstream>

#include "rdmabench/control/wire.hpp"

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

namespace {

struct RawOptions {
  std::string device, size, connection = "RC", mem = "host", cuda_bus_id, gdr, clock = "auto", output, atomic, numa = "auto",
              passive_wait = "auto";
  long long cpu = -1;
  int ib_port = 1;
  long long gid_index = -1;
  int tcp_port = 18515;
  long long iterations = 0, tx_depth = 0, warmup = -1, cq_mod = 0, rx_depth = 0, post_list = 0;
  long long queue_pairs = 1, duration_s = 0;
  long long inline_size = -1, mtu = 0, sl = 0, tclass = 0;
  double timeout_s = 10;
};

template <typename T>
void require_range(const char* option, T value, T low, T high, const char* unit = "") {
  if (value < low || value > high)
    throw UsageError(fmt::format("{} {} is out of range: expected {} to {}{}", option, value, low, high, unit));
}

/// --mem, --cuda-bus-id and --gdr together. Unknown memory types are refused
/// here, before any connection; the list of valid ones is the library's.
MemoryChoice parse_memory_options(const std::string& mem, const std::string* bus_id, const std::string* gdr) {
  MemoryChoice choice;
  try {
    choice = parse_memory_choice(mem);
  } catch (const Error& e) {
    throw UsageError(std::string("--mem: ") + e.what());
  }
  if (bus_id) {
    if (!choice.is_cuda())
      throw UsageError(fmt::format("--cuda-bus-id applies to --mem cuda or cuda-host; --mem is {}", mem));
    if (mem.find(':') != std::string::npos)
      throw UsageError(fmt::format("--mem {} and --cuda-bus-id both name a GPU: give --mem {} with "
                                   "--cuda-bus-id, or the ordinal alone",
                                   mem, mem.substr(0, mem.find(':'))));
    if (!is_pci_bus_id(*bus_id))
      throw UsageError(fmt::format("--cuda-bus-id {} is not a PCI address: expected BB:DD.F or "
                                   "DDDD:BB:DD.F in hex, such as 3b:00.0 (nvidia-smi -q shows Bus Id)",
                                   *bus_id));
    choice.cuda_bus_id = *bus_id;
  }
  if (gdr) {
    if (choice.kind != MemoryChoice::Kind::cuda)
      throw UsageError(fmt::format("--gdr applies to GPU device memory (--mem cuda:N); --mem is {}", mem));
    if (*gdr == "auto") choice.gdr = GdrMode::automatic;
    else if (*gdr == "dmabuf") choice.gdr = GdrMode::dmabuf;
    else if (*gdr == "peermem") choice.gdr = GdrMode::peermem;
    else throw UsageError(fmt::format("--gdr {} is unknown: expected dmabuf, peermem or auto", *gdr));
  }
  return choice;
}

/// --cpu must name a CPU this process may use; --numa is auto or off.
void parse_placement(const RawOptions& raw, const po::variables_map& vm, CpuPlacementRequest& placement) {
  if (raw.numa == "auto") placement.follow_device_numa = true;
  else if (raw.numa == "off") placement.follow_device_numa = false;
  else throw UsageError(fmt::format("--numa {} is unknown: expected auto or off", raw.numa));
  if (!vm.count("cpu")) return;
  const auto allowed = allowed_cpus();
  const bool fits = raw.cpu >= 0 && raw.cpu <= std::numeric_limits<int>::max();
  if (!fits || !std::binary_search(allowed.begin(), allowed.end(), static_cast<int>(raw.cpu)))
    throw UsageError(fmt::format("--cpu {} is not a CPU this process may run on; valid CPUs: {}", raw.cpu,
                                 format_cpu_list(allowed)));
  placement.cpu = static_cast<int>(raw.cpu);
}

}  // namespace

CommandLine parse_command_line(const BenchmarkKind& kind, const std::vector<std::string>& args) {
  RawOptions raw;
  CommandLine cl;
  po::options_description device("Device"), connection("Connection"), test("Test"),
      memory("Memory"), placement("CPU placement"), output("Output"), general("General");
  device.add_options()
      ("ib-dev,d", po::value(&raw.device), "RDMA device (default: the first; with -R: the one rdma_cm routes to)")
      ("ib-port,i", po::value(&raw.ib_port)->default_value(1), "port of the device")
      ("gid-index,x", po::value(&raw.gid_index), "GID index (default: RoCEv2 GID of the peer's address family)")
      ("mtu,m", po::value(&raw.mtu), "path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU)")
      ("sl", po::value(&raw.sl), "service level, 0-15")
      ("tclass", po::value(&raw.tclass), "traffic class (RoCE: DSCP and ECN bits), 0-255")
      ("inline-size,I", po::value(&raw.inline_size), "max inline bytes (default: up to 220, as the device allows)");
  connection.add_options()
      ("port,p", po::value(&raw.tcp_port)->default_value(18515), "TCP control port (rdma_cm uses port + 1)")
      ("rdma-cm,R", po::bool_switch(), "connect the QPs with rdma_cm (automatic on iWARP)")
      ("connection,c", po::value(&raw.connection)->default_value("RC"),
       "queue pair type: RC, UC (sends and writes) or UD (sends; one MTU per message)")
      ("timeout", po::value(&raw.timeout_s)->default_value(10.0), "seconds to wait for the peer before giving up")
      ("ready-file", po::value(&cl.ready_file),
       "server: once listening, write a JSON line (ready, pid, tcp_port, rdma_cm_port) to FILE, for scripts");
  test.add_options()
      ("size,s", po::value(&raw.size), fmt::format("message size in bytes, K/M/G suffixes (default {})", kind.default_size).c_str())
      ("all,a", po::bool_switch(), "sweep sizes 2 B to 8 MiB, powers of two")
      ("duration,D", po::value(&raw.duration_s), "run each size for SECONDS instead of -n; the first and last tenth are not timed")
      ("qp,q", po::value(&raw.queue_pairs), "queue pairs on the connection (bandwidth tests; default 1)")
      ("write-with-imm", po::bool_switch(&cl.spec.write_with_imm), "writes carry immediate data; the target reaps a completion for each (write tests; not on iWARP)")
      ("bidirectional,b", po::bool_switch(&cl.spec.bidirectional), "both sides send at once (bandwidth tests; give it on both sides)")
      ("atomic-type,A", po::value(&raw.atomic), "atomic tests: FETCH_AND_ADD (default) or CMP_AND_SWAP")
      ("iters,n", po::value(&raw.iterations), fmt::format("timed iterations per size (default {})", kind.default_iterations).c_str())
      ("tx-depth,t", po::value(&raw.tx_depth), fmt::format("operations in flight (default {})", kind.default_tx_depth).c_str())
      ("post-list,l", po::value(&raw.post_list), "work requests per post, chained (bandwidth tests; default 1)")
      ("rx-depth,r", po::value(&raw.rx_depth), "receives kept posted (send tests; default 512, 4096 on iWARP)")
      ("cq-mod,Q", po::value(&raw.cq_mod), "signal one write in N (bandwidth; default 3/4 of the tx depth, at most 100, and at least one per 64 KiB)")
      ("warmup", po::value(&raw.warmup), "untimed iterations before each size (default: 100, or the tx depth for bandwidth, where an -a sweep warms its first size only)");
  memory.add_options()
      ("mem", po::value(&raw.mem)->default_value("host"),
       "buffer memory on this side: host, hugepage, cuda:N (GPU N) or cuda-host:N (pinned by CUDA)")
      ("cuda-bus-id", po::value(&raw.cuda_bus_id), "the GPU of --mem cuda/cuda-host by PCI address, BB:DD.F or DDDD:BB:DD.F")
      ("gdr", po::value(&raw.gdr), "GPU memory registration: dmabuf, peermem or auto (dma-buf, then peer memory; default)");
  placement.add_options()
      ("cpu", po::value(&raw.cpu), "run the benchmark thread on this CPU only")
      ("numa", po::value(&raw.numa)->default_value("auto"),
       "auto: run on the CPUs of the device's NUMA node (when known); off: leave it to the scheduler")
      ("passive-wait", po::value(&raw.passive_wait)->default_value("auto"),
       "read and atomic latency: the idle server keeps a CPU busy at the lowest priority (spin), so "
       "a soft device's responder thread never waits for a CPU to wake, or lets it idle (sleep); "
       "auto spins on iWARP only; the client's choice holds");
  output.add_options()
      ("cpu-util", po::bool_switch(&cl.spec.cpu_util), "report the CPU cost of each size on both sides")
      ("validate", po::bool_switch(&cl.spec.validate), "after each size, check every byte of untimed messages")
      ("report-gbits", po::bool_switch(&cl.report_gbits), "bandwidth in Gb/s instead of MB/s (10^6 B/s)")
      ("json", po::value(&cl.json_path), "write JSON Lines to FILE ('-' for stdout; the table then goes to stderr)")
      ("dump-samples", po::value(&cl.samples_path), "write every latency sample (usec) to FILE")
      ("csv", po::value(&cl.csv_path), "write one CSV row per size to FILE")
      ("output", po::value(&raw.output), "print only one number per size: bandwidth, message_rate or latency")
      ("clock", po::value(&raw.clock)->default_value("auto"), "timestamps: auto, tsc or monotonic (clock_gettime)");
  general.add_options()
      ("help,h", po::bool_switch(&cl.show_help), "show this help")
      ("version", po::bool_switch(&cl.show_version), "show the version");
  po::options_description all;
  all.add(device).add(connection).add(test).add(memory).add(placement).add(output).add(general);
  po::options_description hidden;
  hidden.add_options()("server", po::value(&cl.side.server));
  po::options_description parsed;
  parsed.add(all).add(hidden);
  po::positional_options_description positional;
  positional.add("server", 1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(parsed).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  std::ostringstream help;
  help << "Usage: " << kind.name << " [options]            (server)\n"
       << "       " << kind.name << " [options] SERVER     (client)\n" << all;
  cl.help_text = help.str();
  if (cl.show_help || cl.show_version) return cl;

  // Ranges checked here are fixed by the protocol; device limits (message
  // size, queue depth) are checked against the device once it is open.
  require_range("-i/--ib-port", raw.ib_port, 1, 255);
  require_range("-p/--port", raw.tcp_port, 1, 65534);
  if (vm.count("gid-index")) {
    require_range("-x/--gid-index", raw.gid_index, 0LL, 65535LL);
    cl.side.gid_index = static_cast<std::uint32_t>(raw.gid_index);
  }
  if (!(raw.timeout_s >= 0.001 && raw.timeout_s <= 86400))
    throw UsageError(fmt::format("--timeout {} is out of range: expected 0.001 to 86400 seconds", raw.timeout_s));
  cl.side.device = raw.device;
  cl.side.port = static_cast<std::uint8_t>(raw.ib_port);
  cl.side.tcp_port = static_cast<std::uint16_t>(raw.tcp_port);
  cl.side.timeout = Milliseconds(static_cast<long long>(raw.timeout_s * 1000));
  cl.side.memory = parse_memory_options(raw.mem, vm.count("cuda-bus-id") ? &raw.cuda_bus_id : nullptr,
                                        vm.count("gdr") ? &raw.gdr : nullptr);
  if (vm.count("mtu")) {
    if (raw.mtu != 256 && raw.mtu != 512 && raw.mtu != 1024 && raw.mtu != 2048 && raw.mtu != 4096)
      throw UsageError(fmt::format("-m/--mtu {} is invalid: expected 256, 512, 1024, 2048 or 4096", raw.mtu));
    cl.side.qp.mtu_bytes = static_cast<std::uint32_t>(raw.mtu);
  }
  require_range("--sl", raw.sl, 0LL, 15LL);
  require_range("--tclass", raw.tclass, 0LL, 255LL);
  cl.side.qp.service_level = static_cast<std::uint8_t>(raw.sl);
  cl.side.qp.traffic_class = static_cast<std::uint8_t>(raw.tclass);
  if (vm.count("inline-size")) {
    require_range("-I/--inline-size", raw.inline_size, 0LL, 65536LL);
    cl.side.qp.inline_bytes = static_cast<std::uint32_t>(raw.inline_size);
  }
  parse_placement(raw, vm, cl.placement);
  if (raw.clock == "auto") cl.clock = ClockChoice::automatic;
  else if (raw.clock == "tsc") cl.clock = ClockChoice::tsc;
  else if (raw.clock == "monotonic") cl.clock = ClockChoice::monotonic;
  else throw UsageError(fmt::format("--clock {} is unknown: expected auto, tsc or monotonic", raw.clock));

  TestSpec& spec = cl.spec;
  spec.operation = kind.operation;
  spec.measurement = kind.measurement;
  spec.connect = vm["rdma-cm"].as<bool>() ? ConnectMethod::rdma_cm : ConnectMethod::tcp_exchange;
  if (raw.connection == "RC") spec.qp_type = QpType::rc;
  else if (raw.connection == "UC") spec.qp_type = QpType::uc;
  else if (raw.connection == "UD") spec.qp_type = QpType::ud;
  else throw UsageError(fmt::format("-c/--connection {} is unknown: expected RC, UC or UD", raw.connection));
  const bool sweep = vm["all"].as<bool>();
  if (kind.operation == Operation::atomic) {
    // Atomics have one size; refuse the options that would pretend otherwise.
    if (sweep) throw UsageError("-a/--all does not apply to atomics, which always move 8 bytes");
    if (vm.count("size") && parse_size(raw.size) != kAtomicBytes)
      throw UsageError(fmt::format("-s/--size {} is invalid for atomics: they always move 8 bytes", raw.size));
    if (raw.atomic == "CMP_AND_SWAP") spec.atomic = AtomicOp::compare_and_swap;
    else if (raw.atomic.empty() || raw.atomic == "FETCH_AND_ADD") spec.atomic = AtomicOp::fetch_and_add;
    else throw UsageError(fmt::format("-A/--atomic-type {} is unknown: expected FETCH_AND_ADD or CMP_AND_SWAP", raw.atomic));
  } else if (!raw.atomic.empty()) {
    throw UsageError("-A/--atomic-type applies to atomic tests; " + kind.name + " runs none");
  }
  if (sweep && vm.count("size"))
    throw UsageError("-s/--size and -a/--all conflict: give one size with -s, or sweep all with -a");
  if (sweep) {
    spec.sizes = all_sizes();
  } else {
    spec.sizes = {vm.count("size") ? parse_size(raw.size) : kind.default_size};
    if (spec.sizes[0] == 0)
      throw UsageError("-s/--size 0 is invalid: a message carries at least 1 byte");
  }
  spec.iterations = kind.default_iterations;
  if (vm.count("iters")) {
    require_range("-n/--iters", raw.iterations, 1LL, 1'000'000'000LL);
    spec.iterations = static_cast<std::uint64_t>(raw.iterations);
  }
  spec.tx_depth = kind.default_tx_depth;
  if (vm.count("tx-depth")) {
    require_range("-t/--tx-depth", raw.tx_depth, 1LL, 65536LL);
    spec.tx_depth = static_cast<std::uint32_t>(raw.tx_depth);
  }
  if (vm.count("post-list")) {
    if (kind.measurement != Measurement::bandwidth)
      throw UsageError("-l/--post-list applies to bandwidth tests; " + kind.name + " has one message in flight");
    require_range("-l/--post-list", raw.post_list, 1LL, 65536LL);
    if (raw.post_list > spec.tx_depth)
      throw UsageError(fmt::format("-l/--post-list {} exceeds -t/--tx-depth {}: a chain must fit in the queue",
                                   raw.post_list, spec.tx_depth));
    spec.post_list = static_cast<std::uint32_t>(raw.post_list);
  }
  if (vm.count("rx-depth")) {
    if (kind.operation != Operation::send)
      throw UsageError("-r/--rx-depth applies to send tests; " + kind.name + " posts no receives");
    require_range("-r/--rx-depth", raw.rx_depth, 1LL, 65536LL);
    if (raw.rx_depth < 2 && kind.measurement == Measurement::latency)
      throw UsageError("-r/--rx-depth 1 is too small for " + kind.name +
                       ": each side answers before it reposts the receive it used, so the next "
                       "message needs a second one posted; give 2 or more");
    spec.rx_depth = static_cast<std::uint32_t>(raw.rx_depth);
  }
  if (vm.count("cq-mod")) {
    require_range("-Q/--cq-mod", raw.cq_mod, 1LL, 65536LL);
    if (raw.cq_mod > spec.tx_depth)
      throw UsageError(fmt::format("-Q/--cq-mod {} exceeds -t/--tx-depth {}: a signaled write must fit "
                                   "in the queue; lower -Q or raise -t",
                                   raw.cq_mod, spec.tx_depth));
    spec.cq_mod = static_cast<std::uint32_t>(raw.cq_mod);
  }
  if (vm.count("warmup")) {
    require_range("--warmup", raw.warmup, 0LL, 1'000'000'000LL);
    spec.warmup = static_cast<std::uint32_t>(raw.warmup);
  } else {
    spec.warmup = kind.measurement == Measurement::latency ? 100 : spec.tx_depth;
    // A bandwidth sweep warms up before its first size only: each later size
    // follows the previous one on warm queue pairs, and an average over many
    // messages barely feels a cold first one. Latency keeps warming every
    // size, since its tail percentiles would show the cold messages.
    spec.warmup_each_size = !(sweep && kind.measurement == Measurement::bandwidth);
  }
  if (!raw.output.empty()) {
    const bool latency = kind.measurement == Measurement::latency;
    if (raw.output == "latency" && latency) cl.bare_output = BareFigure::latency;
    else if (raw.output == "bandwidth" && !latency) cl.bare_output = BareFigure::bandwidth;
    else if (raw.output == "message_rate" && !latency) cl.bare_output = BareFigure::message_rate;
    else
      throw UsageError(fmt::format("--output {} does not fit {}: expected {}", raw.output, kind.name,
                                   latency ? "latency" : "bandwidth or message_rate"));
  }
  if (vm.count("qp")) {
    if (kind.measurement != Measurement::bandwidth)
      throw UsageError("-q/--qp applies to bandwidth tests; " + kind.name + " times one message at a time on one QP");
    require_range("-q/--qp", raw.queue_pairs, 1LL, static_cast<long long>(wire::kMaxQueuePairs));
    spec.queue_pairs = static_cast<std::uint32_t>(raw.queue_pairs);
  }
  if (spec.bidirectional && kind.measurement != Measurement::bandwidth)
    throw UsageError("-b/--bidirectional applies to bandwidth tests; " + kind.name +
                     " already times messages in both directions");
  if (spec.write_with_imm && kind.operation != Operation::write)
    throw UsageError("--write-with-imm applies to write tests; " + kind.name + " performs no RDMA writes");
  if (vm.count("duration")) {
    require_range("-D/--duration", raw.duration_s, 1LL, 86400LL, " seconds");
    if (vm.count("iters"))
      throw UsageError("-D/--duration and -n/--iters conflict: a run is either timed or counted; give one");
    if (sweep)
      throw UsageError("-D/--duration and -a/--all conflict: a timed run measures one size; give -s");
    if (vm.count("warmup"))
      throw UsageError("-D/--duration and --warmup conflict: a timed run leaves out its first tenth "
                       "instead of counted warm-up messages");
    if (!cl.samples_path.empty())
      throw UsageError("-D/--duration and --dump-samples conflict: a timed run keeps a histogram, "
                       "not every sample; use -n to keep them");
    spec.duration_s = static_cast<std::uint32_t>(raw.duration_s);
    spec.warmup = 0;
  }
  if (raw.passive_wait == "auto") spec.passive_wait = PassiveWait::automatic;
  else if (raw.passive_wait == "spin") spec.passive_wait = PassiveWait::spin;
  else if (raw.passive_wait == "sleep") spec.passive_wait = PassiveWait::sleep;
  else
    throw UsageError(fmt::format("--passive-wait {} is unknown: expected auto, spin or sleep",
                                 raw.passive_wait));
  const bool idle_server = server_is_passive(spec) && spec.measurement == Measurement::latency;
  if (!vm["passive-wait"].defaulted() && !idle_server)
    throw UsageError("--passive-wait applies to rdma_read_lat and rdma_atomic_lat, whose server "
                     "is idle while the client times; " + kind.name +
                     (kind.measurement == Measurement::bandwidth ? " is a bandwidth test"
                                                                 : "'s server answers every message"));
  if (spec.validate && kind.operation == Operation::atomic)
    throw UsageError("--validate checks data transfers; atomics move no buffer to check");
  if (cl.bare_output && cl.json_path == "-")
    throw UsageError("--output and --json - both want stdout; write the JSON to a file");
  if (!cl.samples_path.empty() && kind.measurement != Measurement::latency)
    throw UsageError("--dump-samples applies to latency tests; " + kind.name + " keeps no per-message samples");
  if (!cl.ready_file.empty() && cl.is_client())
    throw UsageError("--ready-file applies to the server, which listens; drop it on the client");
  if (auto problem = find_unsupported(spec)) throw UsageError(*problem);
  return cl;
}

}  // namespace rdmabench::cli
