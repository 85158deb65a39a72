// rdma_write_bw: RDMA write bandwidth and message rate.
#include "cli/benchmark_kinds.hpp"
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  return cli::run_main(cli::benchmark_kind("rdma_write_bw"), argc, argv);
}
