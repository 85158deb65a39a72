#include "run_main.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/system/cpu_governor.hpp"
#include "rdmabench/engine/engine.hpp"
#include "rdmabench/topology/path_ceiling.hpp"
#include "rdmabench/topology/topology.hpp"
#include "cli/main_frame.hpp"
#include "cli/output_file.hpp"
#include "cli/ready_file.hpp"

namespace rdmabench::cli {

namespace {

struct Outputs {
  std::vector<std::unique_ptr<std::ofstream>> files;
  /// The stream of a file open_output() opened, kept here for the run.
  std::ostream& keep(OutputFile file) {
    files.push_back(std::move(file.stream));
    return *files.back();
  }
  std::unique_ptr<Reporter> reporter;
};

Outputs make_outputs(const CommandLine& cl) {
  Outputs o;
  std::vector<std::unique_ptr<Reporter>> reporters;
  const bool json_on_stdout = cl.json_path == "-";
  // With JSON or --output on stdout the human table moves to stderr, so
  // stdout stays machine-readable.
  reporters.push_back(make_console_reporter(json_on_stdout || cl.bare_output ? std::cerr : std::cout));
  if (cl.bare_output) reporters.push_back(make_bare_number_reporter(std::cout, *cl.bare_output));
  if (!cl.csv_path.empty()) {
    OutputFile csv = open_output(cl.csv_path, "--csv", cl.existing_output);
    const bool header = !csv.appended;
    reporters.push_back(make_csv_reporter(o.keep(std::move(csv)), header));
  }
  if (json_on_stdout) {
    reporters.push_back(make_json_reporter(std::cout));
  } else if (!cl.json_path.empty()) {
    reporters.push_back(make_json_reporter(o.keep(open_output(cl.json_path, "--json", cl.existing_output))));
  }
  // A progress line only where a person watches: a client sweeping sizes
  // or timing with -D, with stderr on a terminal, unless --quiet.
  if (cl.is_client() && !cl.quiet && (cl.spec.sizes.size() > 1 || cl.spec.duration_s) &&
      ::isatty(STDERR_FILENO))
    reporters.push_back(make_progress_reporter(std::cerr, cl.spec.sizes.size() * cl.spec.repeats));
  if (!cl.samples_path.empty()) {
    reporters.push_back(
        make_samples_reporter(o.keep(open_output(cl.samples_path, "--dump-samples", cl.existing_output))));
  }
  o.reporter = make_tee_reporter(std::move(reporters));
  return o;
}

/// The placement's part of the report context.
void describe_placement(const CpuPlacement& placement, RunContext& context) {
  context.device_numa_node = placement.device_numa_node;
  context.pinned_cpus = format_cpu_list(placement.cpus);
  context.cpu_placement = placement.description;
}

/// With GPU memory: how that GPU reaches the RDMA device, from sysfs (the
/// same classification as rdma_topo). Host memory leaves it empty.
std::string gpu_relationship(const Session& session) {
  const std::string gpu_address = session.connection.memory ? session.connection.memory->pci_address() : "";
  if (gpu_address.empty()) return {};
  const Topology topology = scan_topology();
  const RdmaDevice* nic = find_rdma_device(topology, session.connection.port.device);
  const auto gpu = std::find_if(topology.gpus.begin(), topology.gpus.end(),
                                [&](const Gpu& g) { return g.pci.address == gpu_address; });
  if (gpu == topology.gpus.end())
    return fmt::format("unknown: GPU {} is not in this machine's sysfs", gpu_address);
  const auto rel = nic ? relationship(*gpu, *nic) : std::nullopt;
  if (!rel) return fmt::format("unknown: {} has no PCI path (a soft device)", session.connection.port.device);
  return fmt::format("{} ({}), GPU {} on NUMA node {}", to_string(*rel), describe(*rel), gpu_address,
                     gpu->numa_node ? std::to_string(*gpu->numa_node) : "unknown");
}

/// The most this path can carry, from sysfs: the port's rate, the device's
/// PCIe link and, with GPU memory, the GPU's.
PathCeiling achievable_on(const Session& session) {
  const Connection& link = session.connection;
  const std::string gpu_address = link.memory ? link.memory->pci_address() : "";
  return path_ceiling(scan_topology(), link.port.device, link.port.port,
                      packet_headers(link.transport, link.cm_ip_family()),
                      link.path_mtu_bytes, gpu_address);
}

int run(const BenchmarkKind& kind, const CommandLine& cl) {
  const Notice notice = [&](const std::string& message) {
    std::cerr << kind.name << ": " << message << std::endl;
  };
  for (const auto& note : cl.notes) notice(note);
  auto outputs = make_outputs(cl);  // fail on an unwritable file before connecting
  if (auto warning = governor_warning()) notice(*warning);
  ClockInfo clock = choose_clock(cl.clock, waits_on_events(cl.spec));
  // Pin as early as the device is known, so that buffers are allocated (first
  // touched) near it; without -d that is only once the session has opened it.
  std::optional<CpuPlacement> placement;
  if (!cl.side.device.empty()) placement = place_thread_near_device(cl.placement, cl.side.device);
  auto run_session = [&](Session& session) {
    // A server learns of -e from the client's hello: a TSC chosen for busy
    // loops may not keep time for sleeping ones.
    if (waits_on_events(session.spec) && !waits_on_events(cl.spec)) clock = choose_clock(cl.clock, true);
    session.interval = cl.interval;
    if (!placement) {
      placement = place_thread_near_device(cl.placement, session.connection.port.device);
      if (!placement->cpus.empty())
        placement->description += "; pinned after setup, so buffers may lie elsewhere (name the device with -d)";
    }
    RunContext context = describe_run(session, clock);
    context.report_gbits = cl.report_gbits;
    describe_placement(*placement, context);
    context.gpu_relationship = gpu_relationship(session);
    context.achievable = achievable_on(session);
    run_benchmark(session, clock, context, *outputs.reporter);
  };
  if (cl.is_client()) {
    Session session = connect_to_server(cl.side, cl.spec, notice);
    session.pacing = cl.pacing;
    run_session(session);
  } else {
    Server server(cl.side, cl.spec, notice);
    // For people; scripts wait for --ready-file instead of reading this.
    notice(fmt::format("waiting for a client on TCP port {}", cl.side.tcp_port));
    if (!cl.ready_file.empty()) write_ready_file(cl.ready_file, cl.side.tcp_port);
    Session session = server.accept_client();
    const auto turn_away = server.turn_away_while_busy(session.peer->peer_name());
    run_session(session);
  }
  if (auto warning = tsc_drift_warning(clock)) notice(*warning);
  return 0;
}

}  // namespace

int run_main(const BenchmarkKind& kind, int argc, char** argv) {
  return main_frame(
      kind.name, [&] { return parse_command_line(kind, std::vector<std::string>(argv + 1, argv + argc)); },
      [&](const CommandLine& cl) { return run(kind, cl); });
}

}  // namespace rdmabench::cli
