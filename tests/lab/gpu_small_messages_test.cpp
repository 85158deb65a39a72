// GPU memory the CPU cannot touch, for every binary, on the stand-ins of
// both GPU plug-ins (tests/gpu_standin: the CUDA driver's and the HIP
// runtime's entry points over host memory). Each stand-in takes the CPU's
// access to its "device memory" away once it is registered
// (*_STANDIN_CPU_ACCESS=none), so any CPU touch of it faults here as it
// would on a GPU: a provider's inline copy of a small send, its scatter of a
// small receive into the completion, a CPU check of the pattern.
//
// What each plug-in runs (one plan per memory kind, the same pairs):
// - CUDA, the first: GPU memory on the server, then on the client, at 2 B
//   and 64 B (where providers inline and scatter) and 64 KiB; then on both
//   sides across a -a sweep.
// - ROCm: what its own code adds is the provider (allocation, registration,
//   device copies), and what a side does depends on its own memory only; so
//   GPU memory on both sides at once, at 2 B and at 64 KiB: each binary's
//   small and large path on either side, in two pairs (atomics: one).
#include <string>

#include "lab.hpp"
#include "gpu_standin_env.hpp"

using namespace lab;

namespace {

/// What a binary needs besides its size to run on GPU memory: write latency
/// polls a byte of its target unless the writes carry immediate data.
Args needs(const std::string& binary) {
  if (binary == "rdma_write_lat") return {"--write-with-imm"};
  return {};
}

bool is_atomic(const std::string& binary) { return binary.find("atomic") != std::string::npos; }

/// Every line of `json` names this side's memory: for `gpu`'s, registration
/// by peer memory (rxe imports no dma-buf, and a stand-in's is none) and the
/// PCIe walk's answer for a GPU that sysfs does not have.
void check_memory(const std::string& json, const StandinGpu* gpu) {
  const auto lines = read_json_lines(json);
  REQUIRE_FALSE(lines.empty());
  for (const auto& line : lines) {
    const auto& c = line["context"];
    CHECK(c["memory"]["local"] == (gpu ? gpu->memory : "host"));
    CHECK(c["memory"]["registration"] == (gpu ? "peermem" : "host"));
    if (gpu) CHECK(c["gpu_relationship"] == "unknown: GPU " + std::string(gpu->pci) + " is not in this machine's sysfs");
    else CHECK(c["gpu_relationship"].is_null());
  }
}

/// One pair with `gpu`'s memory on `gpu_side` ("server", "client" or "both").
void run_on_gpu(const StandinGpu& gpu, const std::string& binary, const std::string& gpu_side,
                const Args& size_args) {
  GuardedStandin standin(gpu);
  const auto d = roce();
  TempDir tmp;
  const auto server_json = (tmp.path / "s.json").string(), client_json = (tmp.path / "c.json").string();
  Args server{"-d", d.name, "--json", server_json}, client{"-d", d.name, "--json", client_json};
  for (Args* side : {&server, &client}) {
    const Args extra = needs(binary);
    side->insert(side->end(), extra.begin(), extra.end());
  }
  const bool server_gpu = gpu_side != "client", client_gpu = gpu_side != "server";
  if (server_gpu) server.insert(server.end(), {"--mem", gpu.memory});
  if (client_gpu) client.insert(client.end(), {"--mem", gpu.memory});
  if (!is_atomic(binary)) client.push_back("--validate");
  client.insert(client.end(), size_args.begin(), size_args.end());
  INFO(binary << " with " << gpu.memory << " on " << gpu_side);
  run_pair_ok(binary, server, d.address, client, 180);
  check_memory(server_json, server_gpu ? &gpu : nullptr);
  check_memory(client_json, client_gpu ? &gpu : nullptr);
}

#ifdef RDMABENCH_CUDA_STANDIN
void every_placement(const std::string& binary) {
  for (const char* side : {"server", "client"}) {
    if (is_atomic(binary)) {
      run_on_gpu(kCudaStandin, binary, side, {"-n", "20"});
      continue;
    }
    for (const char* size : {"2", "64", "65536"}) run_on_gpu(kCudaStandin, binary, side, {"-s", size, "-n", "20"});
  }
  run_on_gpu(kCudaStandin, binary, "both", is_atomic(binary) ? Args{"-n", "20"} : Args{"-a", "-n", "4", "--warmup", "1"});
}
#endif

void small_and_large_on_both_sides(const std::string& binary) {
  if (is_atomic(binary)) return run_on_gpu(kHipStandin, binary, "both", {"-n", "20"});
  for (const char* size : {"2", "65536"}) run_on_gpu(kHipStandin, binary, "both", {"-s", size, "-n", "20"});
}

}  // namespace

#ifdef RDMABENCH_CUDA_STANDIN
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
#endif

TEST_CASE("rocm: write_bw with device memory on both sides, 2 B and 64 KiB", "[lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_write_bw");
}
TEST_CASE("rocm: write_lat with device memory on both sides, 2 B and 64 KiB", "[lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_write_lat");
}
TEST_CASE("rocm: read_bw with device memory on both sides, 2 B and 64 KiB", "[lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_read_bw");
}
TEST_CASE("rocm: read_lat with device memory on both sides, 2 B and 64 KiB", "[lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_read_lat");
}
TEST_CASE("rocm: send_bw with device memory on both sides, 2 B and 64 KiB", "[lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_send_bw");
}
// The sanitizer set's ROCm case: a receive and an inline candidate on each
// side, and the HIP copies of --validate.
TEST_CASE("rocm: send_lat with device memory on both sides, 2 B and 64 KiB",
          "[sanitizer][lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_send_lat");
}
TEST_CASE("rocm: atomic_bw with device memory on both sides", "[lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_atomic_bw");
}
TEST_CASE("rocm: atomic_lat with device memory on both sides", "[lab][gpu][rocm][no-cpu-access]") {
  small_and_large_on_both_sides("rdma_atomic_lat");
}
