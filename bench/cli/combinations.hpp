#pragma once
// The second step of parsing: the options each group set are valid alone;
// here they are checked against each other and against the benchmark kind.

#include <boost/program_options.hpp>

#include "cli/options.hpp"

namespace rdmabench::cli {

/// Throws UsageError for the first combination that cannot run, naming the
/// options involved and what would work.
void check_combinations(const BenchmarkKind& kind, const boost::program_options::variables_map& vm,
                        const CommandLine& cl);

}  // namespace rdmabench::cli
