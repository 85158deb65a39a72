// rdma_write_lat: RDMA write one-way latency (ping-pong round trip / 2).
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  const cli::BenchmarkKind kind{"rdma_write_lat", Operation::write, Measurement::latency,
                                /*size*/ 2, /*iterations*/ 1000, /*tx depth*/ 1};
  return cli::run_main(kind, argc, argv);
}
