// rdma_sweep: every pair of a fabric's endpoints, one MPI rank per (host,
// NIC), measured with the suite's own write_bw engine round by round; rank 0
// writes results.jsonl and report.md with the verdict. MPI only coordinates
// (who takes part, barriers between rounds, results to rank 0).
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "cli/options.hpp"
#include "sweep/device_address.hpp"
#include "sweep/mpi_exchange.hpp"
#include "sweep/pair_run.hpp"
#include "sweep/sweep_options.hpp"
#include "sweep/sweep_results.hpp"

namespace {

using namespace rdmabench;
using namespace rdmabench::sweep_cli;

/// A pair below half the median pair's bandwidth fails: loose enough for
/// shared or emulated links, tight enough to name a port at a lower speed.
constexpr double kMinShareOfMedian = 0.5;

struct World {
  int rank = 0;
  int size = 1;
};

std::string this_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

RankInfo describe_self(const World& world, const SweepOptions& options) {
  RankInfo mine;
  mine.endpoint = {world.rank, this_host(), options.device, 0};
  if (!options.address.empty()) {
    mine.address = options.address;
  } else {
    const auto found = device_ipv4(options.device);
    mine.address = found.address;
    mine.address_error = found.error;
  }
  return mine;
}

/// Rank 0 makes the output folder before anything runs, so a bad --out ends
/// the sweep at once instead of after it.
bool prepare_output(const World& world, const SweepOptions& options) {
  bool ok = true;
  if (world.rank == 0) {
    std::error_code error;
    std::filesystem::create_directories(options.out_dir, error);
    if (error) {
      std::cerr << fmt::format("rdma_sweep: error: cannot make --out folder '{}': {}\n", options.out_dir,
                               error.message());
      ok = false;
    }
  }
  return all_ok(ok);
}

SideConfig side_for(const SweepOptions& options, const std::vector<RankInfo>& ranks, std::size_t server) {
  SideConfig side;
  side.device = options.device;
  side.timeout = Milliseconds(static_cast<std::int64_t>(options.timeout_s * 1000));
  side.tcp_port = pair_server_port(options.base_port, static_cast<int>(server), static_cast<int>(ranks.size()));
  side.server = ranks[server].address;
  return side;
}

/// One round: this rank's pair (if any) runs, framed by barriers so every
/// server listens before any client connects and no round overlaps the next.
std::optional<PairRecord> run_round(std::size_t round_index, const sweep::Round& round, const World& world,
                                    const SweepOptions& options, const std::vector<RankInfo>& ranks,
                                    const ClockInfo& clock) {
  const auto me = static_cast<std::size_t>(world.rank);
  const Notice notice = [&](const std::string& message) {
    std::cerr << fmt::format("rdma_sweep rank {}: {}\n", world.rank, message);
  };
  std::optional<sweep::DirectedPair> mine;
  for (const auto& pair : round)
    if (pair.client == me || pair.server == me) mine = pair;
  std::unique_ptr<PairServer> server;
  // Without an address no client comes (it records why), so do not wait for one.
  if (mine && mine->server == me && !ranks[me].address.empty()) {
    SideConfig side = side_for(options, ranks, me);
    side.server.clear();
    server = std::make_unique<PairServer>(side, options.spec, notice);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::optional<PairRecord> record;
  if (mine && mine->client == me) {
    record = PairRecord{round_index, *mine, std::nullopt, {}};
    const auto& peer = ranks[mine->server];
    const PairOutcome outcome =
        peer.address.empty()
            ? PairOutcome{std::nullopt, fmt::format("server rank has no address: {}", peer.address_error)}
            : run_pair_client(side_for(options, ranks, mine->server), options.spec, notice, clock);
    record->gbits_per_s = outcome.gbits_per_s;
    record->error = outcome.error;
  }
  if (server) {
    const PairOutcome outcome = server->run(clock);
    if (!outcome.error.empty()) notice(outcome.error);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return record;
}

void write_outputs(const SweepOptions& options, const std::vector<RankInfo>& ranks,
                   const std::vector<std::string>& texts) {
  std::vector<sweep::Endpoint> endpoints;
  for (const auto& r : ranks) endpoints.push_back(r.endpoint);
  std::vector<PairRecord> records;
  for (const auto& text : texts)
    for (auto& r : decode_records(text)) records.push_back(std::move(r));
  const auto matrix = to_matrix(records, endpoints.size());
  sweep::Thresholds thresholds;
  thresholds.min_share_of_median = kMinShareOfMedian;
  const auto verdict = sweep::judge(matrix, endpoints, write_bandwidth_figure(), thresholds);
  const std::filesystem::path dir = options.out_dir;
  write_results_jsonl(dir / "results.jsonl", endpoints, records);
  write_report_md(dir / "report.md", endpoints, matrix, verdict);
  std::cerr << fmt::format("rdma_sweep: {} pairs, {} failing; wrote {} and {}\n", verdict.pairs_judged,
                           verdict.pairs_failing, (dir / "results.jsonl").string(), (dir / "report.md").string());
}

int sweep_all(const World& world, const SweepOptions& options) {
  if (!prepare_output(world, options)) return 1;
  const auto ranks = allgather_ranks(describe_self(world, options));
  std::vector<sweep::Endpoint> endpoints;
  for (const auto& r : ranks) endpoints.push_back(r.endpoint);
  sweep::ScheduleOptions schedule_options;
  schedule_options.pattern = options.pattern;
  schedule_options.pairing.skip_same_host = options.skip_same_host;
  const auto schedule = sweep::build_schedule(endpoints, schedule_options);
  const ClockInfo clock = choose_clock(ClockChoice::automatic);
  const auto started = std::chrono::steady_clock::now();
  std::vector<PairRecord> mine;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    if (world.rank == 0) std::cerr << fmt::format("rdma_sweep: round {} of {}\n", i + 1, schedule.size());
    if (auto record = run_round(i, schedule[i], world, options, ranks, clock)) mine.push_back(*record);
  }
  const auto texts = gather_to_root(encode_records(mine));
  if (world.rank != 0) return 0;
  write_outputs(options, ranks, texts);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  std::cerr << fmt::format("rdma_sweep: {} rounds in {:.1f} s\n", schedule.size(), took.count());
  return 0;
}

int run(const World& world, int argc, char** argv) {
  SweepOptions options;
  try {
    options = parse_sweep_options(std::vector<std::string>(argv + 1, argv + argc));
    pair_server_port(options.base_port, world.size - 1, world.size);
  } catch (const cli::UsageError& e) {
    if (world.rank == 0) std::cerr << "rdma_sweep: error: " << e.what() << "\nTry 'rdma_sweep --help'.\n";
    return 2;
  }
  if (options.show_help) {
    if (world.rank == 0) std::cout << options.help_text;
    return 0;
  }
  if (world.size < 2) {
    std::cerr << "rdma_sweep: error: a sweep needs at least 2 ranks (mpirun -np N with N >= 2)\n";
    return 2;
  }
  return sweep_all(world, options);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  World world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  int status = 1;
  try {
    status = run(world, argc, argv);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("rdma_sweep rank {}: error: {}\n", world.rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
