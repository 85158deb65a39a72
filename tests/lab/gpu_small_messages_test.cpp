// GPU memory the CPU cannot touch, on either side, for every binary: at 2 B
// and 64 B (where a provider would inline a send or scatter a receive into
// its completion, both CPU copies) and at 64 KiB, and across a -a sweep.
// The stand-in driver takes the CPU's access to its "device memory" away
// once it is registered (CUDA_STANDIN_CPU_ACCESS=none), so any CPU touch
// of it faults here as it would on a GPU.
#include <string>

#include "lab.hpp"
#include "cuda_standin_env.hpp"

using namespace lab;

namespace {

/// What a binary needs besides its size to run on GPU memory: write latency
/// polls a byte of its target unless the writes carry immediate data.
Args needs(const std::string& binary) {
  if (binary == "rdma_write_lat") return {"--write-with-imm"};
  return {};
}

bool is_atomic(const std::string& binary) { return binary.find("atomic") != std::string::npos; }

/// One pair with cuda:0 on `gpu_side` ("server", "client" or "both").
void run_on_gpu(const std::string& binary, const std::string& gpu_side, const Args& size_args) {
  GuardedCudaStandin gpu;
  const auto d = roce();
  Args server{"-d", d.name}, client{"-d", d.name};
  for (Args* side : {&server, &client}) {
    const Args extra = needs(binary);
    side->insert(side->end(), extra.begin(), extra.end());
  }
  if (gpu_side != "client") server.insert(server.end(), {"--mem", "cuda:0"});
  if (gpu_side != "server") client.insert(client.end(), {"--mem", "cuda:0"});
  if (!is_atomic(binary)) client.push_back("--validate");
  client.insert(client.end(), size_args.begin(), size_args.end());
  INFO(binary << " with cuda:0 on " << gpu_side);
  run_pair_ok(binary, server, d.address, client, 180);
}

void every_placement(const std::string& binary) {
  for (const char* side : {"server", "client"}) {
    if (is_atomic(binary)) {
      run_on_gpu(binary, side, {"-n", "20"});
      continue;
    }
    for (const char* size : {"2", "64", "65536"}) run_on_gpu(binary, side, {"-s", size, "-n", "20"});
  }
  run_on_gpu(binary, "both", is_atomic(binary) ? Args{"-n", "20"} : Args{"-a", "-n", "4", "--warmup", "1"});
}

}  // namespace

TEST_CASE("gpu: write_bw with device memory on either side, 2 B to -a", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_write_bw");
}
TEST_CASE("gpu: write_lat with device memory on either side, 2 B to -a", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_write_lat");
}
TEST_CASE("gpu: read_bw with device memory on either side, 2 B to -a", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_read_bw");
}
TEST_CASE("gpu: read_lat with device memory on either side, 2 B to -a", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_read_lat");
}
TEST_CASE("gpu: send_bw with device memory on either side, 2 B to -a", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_send_bw");
}
TEST_CASE("gpu: send_lat with device memory on either side, 2 B to -a", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_send_lat");
}
TEST_CASE("gpu: atomic_bw with device memory on either side", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_atomic_bw");
}
TEST_CASE("gpu: atomic_lat with device memory on either side", "[lab][gpu][no-cpu-access]") {
  every_placement("rdma_atomic_lat");
}
