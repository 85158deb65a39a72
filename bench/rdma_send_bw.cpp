// rdma_send_bw: two-sided send/receive bandwidth and message rate.
#include "cli/benchmark_kinds.hpp"
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  return cli::run_main(cli::benchmark_kind("rdma_send_bw"), argc, argv);
}
