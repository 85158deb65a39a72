#include "cli/benchmark_kinds.hpp"

#include <fmt/format.h>

namespace rdmabench::cli {

const std::vector<BenchmarkKind>& benchmark_kinds() {
  static const std::vector<BenchmarkKind> kinds{
      {"rdma_write_bw", Operation::write, Measurement::bandwidth, 65536, 5000, 128},
      {"rdma_write_lat", Operation::write, Measurement::latency, 2, 1000, 1},
      {"rdma_read_bw", Operation::read, Measurement::bandwidth, 65536, 5000, 128},
      {"rdma_read_lat", Operation::read, Measurement::latency, 2, 1000, 1},
      {"rdma_send_bw", Operation::send, Measurement::bandwidth, 65536, 5000, 128},
      {"rdma_send_lat", Operation::send, Measurement::latency, 2, 1000, 1},
      {"rdma_atomic_bw", Operation::atomic, Measurement::bandwidth, kAtomicBytes, 5000, 128},
      {"rdma_atomic_lat", Operation::atomic, Measurement::latency, kAtomicBytes, 1000, 1},
  };
  return kinds;
}

const BenchmarkKind& benchmark_kind(std::string_view name) {
  std::string valid;
  for (const auto& kind : benchmark_kinds()) {
    const std::string_view test = std::string_view(kind.name).substr(5);  // without "rdma_"
    if (name == kind.name || name == test) return kind;
    valid += (valid.empty() ? "" : ", ") + std::string(test);
  }
  throw UsageError(fmt::format("unknown test '{}': expected one of {}", name, valid));
}

}  // namespace rdmabench::cli
