// rdma_send_lat: two-sided send/receive one-way latency (ping-pong / 2).
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  const cli::BenchmarkKind kind{"rdma_send_lat", Operation::send, Measurement::latency,
                                /*size*/ 2, /*iterations*/ 1000, /*tx depth*/ 1};
  return cli::run_main(kind, argc, argv);
}
