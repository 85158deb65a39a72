#include "cli/soak_options.hpp"

#include <fmt/format.h>

#include "cli/table_options.hpp"

namespace po = boost::program_options;

namespace rdmabench::cli {

void declare_soak_options(po::options_description& test, SoakRaw& raw) {
  test.add_options()
      ("run-infinitely", po::bool_switch(&raw.run_infinitely),
       "client: run the one size until SIGINT or SIGTERM on either side, writing each period's "
       "figures and counters as it ends, then a summary; both sides exit 0 (perftest's "
       "--run_infinitely)")
      ("report-every", po::value(&raw.report_every_s),
       "with --run-infinitely: SECONDS per period, each timed whole (default 10; -D gives it too, "
       "as perftest's)");
}

void apply_soak_options(const po::variables_map& vm, const SoakRaw& raw, CommandLine& cl) {
  const bool every_given = vm.count("report-every") > 0;
  if (!raw.run_infinitely) {
    if (every_given) throw UsageError("--report-every applies with --run-infinitely; give both, or neither");
    return;
  }
  if (cl.spec.sizes.size() != 1)
    throw UsageError("--run-infinitely runs one message size; give -s SIZE instead of -a/--all");
  if (given(vm, "iterations"))
    throw UsageError("--run-infinitely and -n/--iters conflict: a soak runs until SIGINT or "
                     "SIGTERM; --report-every sets each period's seconds");
  long long period = raw.report_every_s;
  if (given(vm, "duration_s")) {
    if (every_given && static_cast<long long>(cl.spec.duration_s) != period)
      throw UsageError(fmt::format("--report-every {} and -D/--duration {} both give the soak's "
                                   "period; give one",
                                   period, cl.spec.duration_s));
    period = cl.spec.duration_s;  // perftest's spelling of the period
  }
  require_range("--report-every", period, 1LL, 86'400LL, " seconds");
  cl.spec.duration_s = static_cast<std::uint32_t>(period);
  cl.spec.run_infinitely = true;
  cl.spec.warmup = 0;  // periods follow each other on the running connection
}

}  // namespace rdmabench::cli
