// rdma_atomic_bw: RDMA atomic (fetch-and-add or compare-and-swap) message rate.
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  const cli::BenchmarkKind kind{"rdma_atomic_bw", Operation::atomic, Measurement::bandwidth,
                                kAtomicBytes, /*iterations*/ 5000, /*tx depth*/ 128};
  return cli::run_main(kind, argc, argv);
}
