// rdma_write_lat: RDMA write one-way latency (ping-pong round trip / 2).
#include "cli/benchmark_kinds.hpp"
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  return cli::run_main(cli::benchmark_kind("rdma_write_lat"), argc, argv);
}
