#pragma once
#include "options.hpp"

namespace rdmabench::cli {

/// The whole life of a benchmark binary: options, connection, run, report.
/// Exit status: 0 success, 1 run failure, 2 bad options.
int run_main(const BenchmarkKind& kind, int argc, char** argv);

}  // namespace rdmabench::cli
