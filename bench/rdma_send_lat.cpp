// rdma_send_lat: two-sided send/receive one-way latency (ping-pong / 2).
#include "cli/benchmark_kinds.hpp"
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  return cli::run_main(cli::benchmark_kind("rdma_send_lat"), argc, argv);
}
