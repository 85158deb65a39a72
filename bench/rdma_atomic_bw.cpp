// rdma_atomic_bw: RDMA atomic (fetch-and-add or compare-and-swap) message rate.
#include "cli/benchmark_kinds.hpp"
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  return cli::run_main(cli::benchmark_kind("rdma_atomic_bw"), argc, argv);
}
