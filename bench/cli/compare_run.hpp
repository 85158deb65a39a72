#pragma once
// rdma_compare's run: read both sides, compare, write the report, and the
// exit status a CI job gates on.

#include <ostream>

#include "cli/compare_options.hpp"

namespace rdmabench::cli {

/// Exit statuses of rdma_compare.
inline constexpr int kCompareSame = 0;       ///< nothing regressed (same or improved)
inline constexpr int kCompareRegressed = 1;  ///< at least one figure regressed
inline constexpr int kCompareError = 2;      ///< a usage or input error: no comparison

/// Reads both sides, compares them and writes the report to cl.out (or
/// `out` for "-"); errors and warnings go to `err` as
/// "rdma_compare: error: ...". Returns one of the statuses above.
int run_compare(const CompareCommandLine& cl, std::ostream& out, std::ostream& err);

}  // namespace rdmabench::cli
