#pragma once
// --run-infinitely and --report-every: a soak run, the one size in periods
// until SIGINT or SIGTERM (perftest's --run_infinitely, whose period is -D;
// ours takes -D too).

#include <boost/program_options.hpp>

#include "cli/options.hpp"

namespace rdmabench::cli {

struct SoakRaw {
  bool run_infinitely = false;
  long long report_every_s = 10;
};

void declare_soak_options(boost::program_options::options_description& test, SoakRaw& raw);

/// After the sizes and -D are applied: a soak's period becomes the spec's
/// duration. UsageError for what a soak cannot run (several sizes, -n) or a
/// period given twice differently.
void apply_soak_options(const boost::program_options::variables_map& vm, const SoakRaw& raw,
                        CommandLine& cl);

}  // namespace rdmabench::cli
