// rdma_atomic_lat: RDMA atomic latency (a full round trip: one atomic).
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  const cli::BenchmarkKind kind{"rdma_atomic_lat", Operation::atomic, Measurement::latency,
                                kAtomicBytes, /*iterations*/ 1000, /*tx depth*/ 1};
  return cli::run_main(kind, argc, argv);
}
