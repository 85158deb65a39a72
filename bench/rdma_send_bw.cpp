// rdma_send_bw: two-sided send/receive bandwidth and message rate.
#include "cli/run_main.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  const cli::BenchmarkKind kind{"rdma_send_bw", Operation::send, Measurement::bandwidth,
                                /*size*/ 65536, /*iterations*/ 5000, /*tx depth*/ 128};
  return cli::run_main(kind, argc, argv);
}
