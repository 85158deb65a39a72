#pragma once
// The eight benchmarks and their perftest-like defaults, in one table: the
// binaries take their own row, rdma_sweep takes the rows its --test names.

#include <string_view>
#include <vector>

#include "cli/options.hpp"

namespace rdmabench::cli {

/// Every benchmark, in the order the docs list them.
const std::vector<BenchmarkKind>& benchmark_kinds();

/// The row of "rdma_write_bw" or of its test name "write_bw"; throws
/// UsageError listing the valid names.
const BenchmarkKind& benchmark_kind(std::string_view name);

}  // namespace rdmabench::cli
