// rdma_write_bw: RDMA write bandwidth and message rate.
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  const cli::BenchmarkKind kind{"rdma_write_bw", Operation::write, Measurement::bandwidth,
                                /*size*/ 65536, /*iterations*/ 5000, /*tx depth*/ 128};
  return cli::run_main(kind, argc, argv);
}
