#pragma once
// The pair binaries' kinds as the option tests use them: taken from the
// product's own table, so a test's defaults are the binary's.

#include "cli/benchmark_kinds.hpp"

namespace rdmabench::test {

inline const cli::BenchmarkKind& kReadLatency = cli::benchmark_kind("rdma_read_lat");
inline const cli::BenchmarkKind& kWriteLatency = cli::benchmark_kind("rdma_write_lat");
inline const cli::BenchmarkKind& kSendLatency = cli::benchmark_kind("rdma_send_lat");
inline const cli::BenchmarkKind& kWriteBandwidth = cli::benchmark_kind("rdma_write_bw");
inline const cli::BenchmarkKind& kSendBandwidth = cli::benchmark_kind("rdma_send_bw");
inline const cli::BenchmarkKind& kReadBandwidth = cli::benchmark_kind("rdma_read_bw");
inline const cli::BenchmarkKind& kAtomicLatency = cli::benchmark_kind("rdma_atomic_lat");
inline const cli::BenchmarkKind& kAtomicBandwidth = cli::benchmark_kind("rdma_atomic_bw");

}  // namespace rdmabench::test
