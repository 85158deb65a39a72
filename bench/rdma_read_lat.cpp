// rdma_read_lat: RDMA read latency (a full round trip: one read).
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  const cli::BenchmarkKind kind{"rdma_read_lat", Operation::read, Measurement::latency,
                                /*size*/ 2, /*iterations*/ 1000, /*tx depth*/ 1};
  return cli::run_main(kind, argc, argv);
}
