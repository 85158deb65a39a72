// rdma_atomic_lat: RDMA atomic latency (a full round trip: one atomic).
#include "cli/benchmark_kinds.hpp"
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  return cli::run_main(cli::benchmark_kind("rdma_atomic_lat"), argc, argv);
}
