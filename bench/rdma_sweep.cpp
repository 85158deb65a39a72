// rdma_sweep: every pair of a fabric's endpoints, one MPI rank per (host,
// NIC), measured with the suite's own engine round by round. MPI starts the
// ranks and carries the coordination and each pair's control messages;
// the timed loops are the pair benchmarks' own. Rank 0 writes
// results.jsonl as pairs finish, then the CSVs, heatmaps and reports.
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "cli/options.hpp"
#include "sweep/coordination.hpp"
#include "sweep/join_watchdog.hpp"
#include "sweep/out_folder.hpp"
#include "sweep/rank_setup.hpp"
#include "sweep/sweep_options.hpp"
#include "rdmabench/version.hpp"

namespace {

using namespace rdmabench;
using namespace rdmabench::sweep_cli;

std::string this_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

/// Rank 0 makes the output folder before anything runs, so a bad --out
/// ends the sweep at once instead of after it.
std::string prepare_output(const SweepOptions& options) {
  std::error_code error;
  std::filesystem::create_directories(options.out_dir, error);
  if (error) return fmt::format("cannot make the --out folder '{}': {}", options.out_dir, error.message());
  // A baseline that cannot be read is said now, not in the last report.
  if (!options.baseline_dir.empty()) {
    try {
      read_baseline_records(options.baseline_dir);
    } catch (const Error& e) {
      return e.what();
    }
  }
  return {};
}

/// Every rank's setup, or the reasons some cannot take part (rank 0 prints them).
std::optional<std::vector<RankSetup>> gather_setups(const World& world, const RankSetup& mine,
                                                    const SweepOptions& options) {
  auto description = encode_setup(mine);
  std::vector<RankSetup> all;
  bool ok = true;
  for (const auto& text : allgather_text(world, description, options.timeout_s + 30)) {
    all.push_back(decode_setup(text));
    if (!all.back().error.empty()) {
      ok = false;
      if (world.rank == 0) std::cerr << "rdma_sweep: error: " << all.back().error << "\n";
    }
  }
  if (!ok) return std::nullopt;
  return all;
}

int sweep_all(const World& world, const SweepOptions& options) {
  RankSetup mine = prepare_rank(world.rank, world.local_rank, this_host(), options);
  if (world.rank == 0 && mine.error.empty()) {
    mine.error = prepare_output(options);
    if (!mine.error.empty()) mine.error = "rank 0: " + mine.error;
  }
  const auto all = gather_setups(world, mine, options);
  if (!all) return 2;
  std::vector<sweep::EndpointContext> everyone;
  for (const auto& s : *all) everyone.push_back(s.me);
  if (options.limits.min_line_rate)
    for (const auto& e : everyone)
      if (!e.port_rate_Gbps)
        throw Error(fmt::format("--min-line-rate needs each port's rate, and {} reports none",
                                sweep::describe(e.endpoint)),
                    "give --min-gbps instead");
  const SweepRank rank{world, options, mine, everyone, choose_clock(ClockChoice::automatic)};
  Mailbox mail(world);
  if (world.rank == 0) install_termination_handler();
  // The end barrier, bounded: a rank stopped or stuck after its last pair
  // ends the job instead of hanging it.
  const auto meet_at_the_end = [&world, &options] {
    const double limit = options.timeout_s + 3.0;
    if (all_reach_the_end(world, limit)) return;
    std::cerr << fmt::format("rdma_sweep rank {}: error: not every rank reached the end of the sweep within {:.0f} "
                             "s (one is stopped or stuck); {}ending the job\n",
                             world.rank, limit, world.rank == 0 ? "the reports are written; " : "");
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, 3);
  };
  if (world.rank == 0) return conduct(rank, mail, meet_at_the_end);
  const int status = play(rank, mail);
  meet_at_the_end();
  return status;
}

int run(const World& world, int argc, char** argv) {
  SweepOptions options;
  try {
    options = parse_sweep_options(std::vector<std::string>(argv + 1, argv + argc));
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

// Under LeakSanitizer (the ASan build of CI): no leak check for this
// binary. Open MPI keeps allocations until the process ends and unloads its
// components at MPI_Finalize, so their leaks come without a module name to
// suppress them by, and they would fail every sweep. ASan's checks of
// memory errors stay on; the sweep's MPI-free code is leak-checked in the
// unit tier.
extern "C" int __lsan_is_turned_off() { return 1; }

namespace {

/// --help and --version before MPI_Init: they work on a login node without
/// mpirun, and help2man runs them at build time. Anything else (a usage
/// error included) is left to the ranks.
bool answered_without_mpi(int argc, char** argv) {
  try {
    const auto options = parse_sweep_options(std::vector<std::string>(argv + 1, argv + argc));
    if (options.show_help) std::cout << options.help_text;
    else if (options.show_version) print_version("rdma_sweep");
    return options.show_help || options.show_version;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (answered_without_mpi(argc, argv)) return 0;
  int provided = 0;
  // Each pair's session has a heartbeat thread, and an incast root runs
  // several pairs at once: MPI is called from several threads.
  const double join_limit = join_limit_seconds(argc, argv);
  JoinWatchdog watchdog(join_limit, [join_limit] {
    std::cerr << fmt::format(
        "rdma_sweep: error: this rank could not join the job within {:.0f} s (--timeout + "
        "30 s): another rank is stopped or stuck before it joined; ending this rank\n",
        join_limit);
    std::cerr.flush();
    std::_Exit(3);
  });
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  World world = join_world();
  watchdog.disarm();
  if (provided < MPI_THREAD_MULTIPLE) {
    if (world.rank == 0)
      std::cerr << "rdma_sweep: error: this MPI library does not support MPI_THREAD_MULTIPLE, which the "
                   "pairs' heartbeats need (Open MPI and MPICH do; check how yours was built)\n";
    MPI_Finalize();
    return 2;
  }
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
