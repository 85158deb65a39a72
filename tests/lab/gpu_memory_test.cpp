// GPU memory on one side of real pairs, with the stand-in CUDA driver
// (tests/gpu_standin: host memory behind the CUDA entry points, loaded
// through RDMABENCH_CUDA_DRIVER as the real driver would be). What this
// proves: the plug-in's dispatch, registration order and device copies
// work end to end over kernel rxe/siw; not that a GPU moves data (that is
// tools/gpu-check, on a machine with one).
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "lab.hpp"
#include "../scoped_env.hpp"
#include "gpu_standin_env.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

// Environment variables set here are inherited by the pairs we start.
using rdmabench::test::ScopedEnv;

using StandinDriver = GuardedCudaStandin;

/// Every size validated, every line naming `memory` and `registration` as
/// this side's.
void check_side(const std::string& json, const std::string& memory, const std::string& registration) {
  const auto lines = read_json_lines(json);
  REQUIRE_FALSE(lines.empty());
  for (const auto& line : lines) {
    CHECK(line.value("validated", false));
    const auto& m = line["context"]["memory"];
    CHECK(m["local"] == memory);
    CHECK(m["registration"] == registration);
  }
}

/// Runs `binary` alone (a server) and requires it to fail before listening.
std::unique_ptr<Process> fails_before_listening(Args argv) {
  TempDir tmp;
  const auto ready = tmp.path / "ready";
  argv.insert(argv.end(), {"--ready-file", ready.string()});
  auto p = std::make_unique<Process>(argv);
  INFO(p->describe());
  REQUIRE(p->wait_for(30s) == 1);
  CHECK_FALSE(std::filesystem::exists(ready));  // it never listened
  return p;
}

}  // namespace

TEST_CASE("gpu: server on cuda:0, client on host, writes validated (H->D over rxe)", "[sanitizer][lab][gpu]") {
  StandinDriver standin;
  ScopedEnv dmabuf{"CUDA_STANDIN_DMABUF", "memfd"};  // dma-buf is tried first, and refused
  const auto d = roce();
  TempDir tmp;
  const auto server_json = (tmp.path / "s.json").string(), client_json = (tmp.path / "c.json").string();
  auto p = run_pair_ok("rdma_write_bw", {"-d", d.name, "--mem", "cuda:0", "--json", server_json}, d.address,
                       {"-d", d.name, "--validate", "-a", "-n", "4", "--warmup", "1", "--json", client_json}, 300);
  INFO("server: " << p.server->describe());
  // rxe cannot import a dma-buf (and a memfd is none), so auto falls back.
  check_side(server_json, "cuda:0", "peermem");
  check_side(client_json, "host", "host");
  CHECK(read_json_lines(client_json).front()["context"]["memory"]["remote"] == "cuda:0");
  CHECK_THAT(p.server->out(), Catch::Contains("local cuda:0 [stand-in GPU 0, PCI 0000:10:00.0, CUDA stand-in driver"));
  CHECK_THAT(p.server->out(), Catch::Contains("(registration: peermem), remote host"));
  // The topology line: the stand-in's GPU (bus 0x10) is not in sysfs, and
  // the report says so rather than guessing a relationship.
  CHECK(read_json_lines(server_json).front()["context"]["gpu_relationship"] ==
        "unknown: GPU 0000:10:00.0 is not in this machine's sysfs");
  CHECK(read_json_lines(client_json).front()["context"]["gpu_relationship"].is_null());
}

TEST_CASE("gpu: client on host reads a cuda:0 buffer, validated (D->H over siw)", "[sanitizer][lab][gpu]") {
  StandinDriver standin;
  ScopedEnv dmabuf{"CUDA_STANDIN_DMABUF", "fail"};  // the export itself fails: straight to peer memory
  const auto d = iwarp();
  TempDir tmp;
  const auto server_json = (tmp.path / "s.json").string(), client_json = (tmp.path / "c.json").string();
  run_pair_ok("rdma_read_bw", {"-d", d.name, "--mem", "cuda:0", "--json", server_json}, d.address,
              {"-d", d.name, "--validate", "-s", "1M", "-n", "8", "--json", client_json});
  check_side(server_json, "cuda:0", "peermem");
  check_side(client_json, "host", "host");
}

TEST_CASE("gpu: send latency from cuda:0 to cuda-host:0, validated (rxe)", "[sanitizer][lab][gpu]") {
  StandinDriver standin;
  const auto d = roce();
  TempDir tmp;
  const auto server_json = (tmp.path / "s.json").string(), client_json = (tmp.path / "c.json").string();
  run_pair_ok("rdma_send_lat", {"-d", d.name, "--mem", "cuda-host:0", "--json", server_json}, d.address,
              {"-d", d.name, "--mem", "cuda:0", "--gdr", "peermem", "--validate", "-s", "4096", "-n", "100",
               "--json", client_json});
  check_side(server_json, "cuda-host:0", "host");
  check_side(client_json, "cuda:0", "peermem");
  // The provider would copy inline data with the CPU: GPU memory never is.
  for (const auto& line : read_json_lines(client_json)) {
    CHECK(line["context"]["max_inline_bytes"] == 0);
    CHECK(line["context"]["max_inline_reason"] == "GPU memory cannot be inlined");
  }
  CHECK(read_json_lines(server_json).front()["context"]["max_inline_bytes"] == 236);
}

TEST_CASE("gpu: -I with GPU memory is refused before listening", "[sanitizer][lab][gpu]") {
  StandinDriver standin;
  const auto p = fails_before_listening({bin("rdma_write_bw"), "--mem", "cuda:0", "-I", "64"});
  CHECK_THAT(p->err(), Catch::Contains("-I/--inline-size 64 cannot be used with --mem cuda:0"));
}

TEST_CASE("gpu: --gdr dmabuf that the device refuses fails naming it, on both sides", "[sanitizer][lab][gpu]") {
  StandinDriver standin;
  ScopedEnv dmabuf{"CUDA_STANDIN_DMABUF", "memfd"};
  const auto d = roce();
  auto p = start_pair("rdma_write_bw", {"-d", d.name}, d.address,
                      {"-d", d.name, "--mem", "cuda:0", "--gdr", "dmabuf", "-n", "10"});
  INFO("client: " << p.client->describe());
  INFO("server: " << p.server->describe());
  REQUIRE(p.client->wait_for(30s) == 1);
  CHECK_THAT(p.client->err(), Catch::Contains("--gdr dmabuf: cannot register cuda:0 memory as a dma-buf: "
                                              "ibv_reg_dmabuf_mr failed"));
  CHECK_THAT(p.client->err(), Catch::Contains("try --gdr peermem"));
  // The client failed after its hello was accepted: the server names why,
  // ends that run and waits for the next client.
  CHECK(p.server->wait_for_output("still waiting for a client", 30s));
  CHECK_THAT(p.server->err(), Catch::Contains("failed: ") && Catch::Contains("--gdr dmabuf"));
  CHECK(p.server->running());
}

TEST_CASE("gpu: no driver, no device or write latency on GPU memory fail before listening", "[sanitizer][lab][gpu]") {
  const auto d = roce();
  const std::string port = std::to_string(free_port_pair());
  {
    ScopedEnv driver{"RDMABENCH_CUDA_DRIVER", "/nonexistent/libcuda.so.1"};
    auto p = fails_before_listening({bin("rdma_send_bw"), "-d", d.name, "-p", port, "--mem", "cuda:0"});
    CHECK_THAT(p->err(), Catch::Contains("--mem cuda:0: no CUDA driver: cannot load /nonexistent/libcuda.so.1"));
  }
  StandinDriver standin;
  {
    auto p = fails_before_listening({bin("rdma_send_bw"), "-d", d.name, "-p", port, "--mem", "cuda:1"});
    CHECK_THAT(p->err(), Catch::Contains("--mem cuda:1: no CUDA device 1 (found 1)"));
  }
  {
    auto p = fails_before_listening({bin("rdma_write_lat"), "-d", d.name, "-p", port, "--mem", "cuda:0"});
    CHECK_THAT(p->err(), Catch::Contains("write latency cannot run on cuda:0 memory"));
    CHECK_THAT(p->err(), Catch::Contains("give --write-with-imm"));
    CHECK_THAT(p->err(), Catch::Contains("rdma_send_lat"));
  }
}

TEST_CASE("gpu: a client without a driver never reaches the server", "[lab][gpu]") {
  const auto d = roce();
  ScopedEnv driver{"RDMABENCH_CUDA_DRIVER", "/nonexistent/libcuda.so.1"};
  auto p = start_pair("rdma_write_bw", {"-d", d.name}, d.address, {"-d", d.name, "--mem", "cuda:0"});
  INFO("client: " << p.client->describe());
  REQUIRE(p.client->wait_for(30s) == 1);
  CHECK_THAT(p.client->err(), Catch::Contains("no CUDA driver"));
  std::this_thread::sleep_for(500ms);
  CHECK(p.server->running());  // still waiting: no client ever said hello
  CHECK_THAT(p.server->err(), !Catch::Contains("rejected"));
}

TEST_CASE("gpu: write_lat on cuda:0 with --write-with-imm polls completions, validated", "[sanitizer][lab][gpu][imm]") {
  StandinDriver standin;
  const auto d = roce();
  auto p = run_pair_ok("rdma_write_lat", {"-d", d.name, "--mem", "cuda:0", "--write-with-imm"}, d.address,
                       {"-d", d.name, "--mem", "cuda:0", "--write-with-imm", "-n", "200", "--validate"});
  INFO(p.client->describe());
  CHECK_THAT(p.client->out(), Catch::Contains("RDMA Write with Immediate Latency Test"));
  CHECK_THAT(p.client->out(), Catch::Contains("validated"));
}
