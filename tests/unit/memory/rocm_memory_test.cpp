// The ROCm plug-in against the HIP stand-in (tests/gpu_standin: host memory
// behind the HIP entry points), loaded the way the real runtime is, through
// RDMABENCH_HIP_RUNTIME; and what it says when there is no runtime at all.
// What needs an AMD GPU (a dma-buf a NIC accepts, GPUDirect traffic) is
// tools/gpu-check rocm:0's, on a machine with one.
#include <unistd.h>

#include "catch2_compat.hpp"
#include <optional>
#include <string>
#include <vector>

#include "memory/gpu/gpu_device_memory.hpp"
#include "memory/rocm/hip_runtime.hpp"
#include "rdmabench/engine/pattern.hpp"
#include "rdmabench/memory/memory.hpp"
#include "gpu_standin_probe.hpp"
#include "test_helpers.hpp"
#include "../scoped_env.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;
using rdmabench::test::ScopedEnv;

namespace {

/// The HIP stand-in as the runtime, with its knobs at their defaults.
struct HipStandin {
  ScopedEnv runtime{"RDMABENCH_HIP_RUNTIME", RDMABENCH_HIP_STANDIN};
  ScopedEnv devices{"HIP_STANDIN_DEVICES", std::nullopt};
  ScopedEnv dmabuf{"HIP_STANDIN_DMABUF", std::nullopt};
};

int hip_standin_outstanding() { return rdmabench::test::standin_outstanding(RDMABENCH_HIP_STANDIN); }

}  // namespace

TEST_CASE("rocm memory: without the HIP runtime, asking for it says what to install", "[rocm]") {
  ScopedEnv runtime{"RDMABENCH_HIP_RUNTIME", "/nonexistent/libamdhip64.so"};
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("rocm:0")), Error,
                         MessageContains("--mem rocm:0: no HIP runtime: /nonexistent/libamdhip64.so was not found"));
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("rocm:0")), Error,
                         MessageContains("ROCm GPU memory needs AMD's HIP runtime, libamdhip64.so: install ROCm") &&
                             MessageContains("set RDMABENCH_HIP_RUNTIME to its path") &&
                             MessageContains("or use --mem host"));
  // Host memory never touches the runtime.
  CHECK(make_memory_provider(parse_memory_choice("host"))->name() == "host");
}

TEST_CASE("rocm memory: the runtime is looked for as ROCm installs it, or where the override says", "[rocm]") {
  {
    ScopedEnv unset{"RDMABENCH_HIP_RUNTIME", std::nullopt};
    const auto candidates = rocm::runtime_candidates();
    REQUIRE(candidates.size() > 1);
    CHECK(candidates.front() == "libamdhip64.so");
    CHECK(candidates.back() == "/opt/rocm/lib/libamdhip64.so");
  }
  ScopedEnv set{"RDMABENCH_HIP_RUNTIME", "/opt/x/libamdhip64.so.6"};
  CHECK(rocm::runtime_candidates() == std::vector<std::string>{"/opt/x/libamdhip64.so.6"});
}

TEST_CASE("rocm memory: a library that is not the HIP runtime is named, not called", "[rocm]") {
  ScopedEnv runtime{"RDMABENCH_HIP_RUNTIME", "libc.so.6"};
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("rocm:0")), Error,
                         MessageContains("the HIP runtime libc.so.6 has no hipGetErrorName") &&
                             MessageContains("update ROCm"));
}

TEST_CASE("rocm memory: a runtime without GPUs, or too few, names what it found", "[rocm]") {
  HipStandin standin;
  {
    ScopedEnv none{"HIP_STANDIN_DEVICES", "0"};
    REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("rocm:0")), Error,
                           MessageContains("--mem rocm:0: no ROCm device 0 (found 0): hipInit failed: no "
                                           "ROCm-capable device is detected (hipErrorNoDevice)"));
  }
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("rocm:1")), Error,
                         MessageContains("--mem rocm:1: no ROCm device 1 (found 1) (valid: 0 to 0; rocm-smi"));
  CHECK(hip_standin_outstanding() == 0);
}

TEST_CASE("rocm memory: device buffers are zeroed, GPU-sized and reached by device copies", "[rocm]") {
  HipStandin standin;
  {
    auto memory = make_memory_provider(parse_memory_choice("rocm:0"));
    CHECK(memory->name() == "rocm:0");
    CHECK_FALSE(memory->cpu_accessible());
    CHECK(memory->device_description() ==
          "stand-in GPU 0, PCI 0000:20:00.0, HIP stand-in runtime (host memory, no GPU)");
    CHECK(memory->pci_address() == "0000:20:00.0");  // what the topology walk looks for in sysfs
    Buffer buffer = memory->allocate(1000);
    CHECK(buffer.size() == 64u << 10);  // whole 64 KiB GPU pages
    // The stand-in fills fresh memory with 0xa5: zeros mean the provider cleared it.
    CHECK(rdmabench::test::read_back(*memory, buffer, buffer.size()) == std::vector<std::byte>(buffer.size()));

    std::vector<std::byte> pattern(1000);
    fill_pattern(pattern, 3);
    memory->copy_in(buffer, pattern);
    CHECK_FALSE(check_pattern(rdmabench::test::read_back(*memory, buffer, pattern.size()), 3).has_value());
    std::vector<std::byte> too_big(buffer.size() + 1);
    REQUIRE_THROWS_MATCHES(memory->copy_out(buffer, too_big), Error, MessageContains("smaller than the data"));

    Buffer outlives = memory->allocate(1);
    memory.reset();  // buffers keep the runtime they need loaded
    CHECK(hip_standin_outstanding() > 0);
  }
  CHECK(hip_standin_outstanding() == 0);
}

TEST_CASE("rocm memory: device memory exports a dma-buf, or says why not", "[rocm]") {
  HipStandin standin;
  auto provider = make_memory_provider(parse_memory_choice("rocm:0"));
  auto& memory = dynamic_cast<gpu::GpuDeviceMemory&>(*provider);
  CHECK_THAT(memory.runtime(), Catch::Contains("HIP runtime " RDMABENCH_HIP_STANDIN " -- a HIP stand-in runtime"));
  Buffer buffer = memory.allocate(4096);
  const auto start = reinterpret_cast<std::uintptr_t>(buffer.data());
  const auto exported = memory.export_dmabuf(start, buffer.size());
  REQUIRE(exported.failure.empty());
  CHECK(exported.fd >= 0);
  ::close(exported.fd);
  CHECK_THAT(memory.export_dmabuf(start, buffer.size() + 1).failure,
             Catch::Contains("hipMemGetHandleForAddressRange failed: invalid argument (hipErrorInvalidValue)"));
  ScopedEnv fail{"HIP_STANDIN_DMABUF", "fail"};
  CHECK_THAT(memory.export_dmabuf(start, buffer.size()).failure,
             Catch::Contains("hipMemGetHandleForAddressRange failed: operation not supported (hipErrorNotSupported)"));
}

TEST_CASE("rocm memory: a client fails before connecting, on write latency or without the runtime", "[rocm]") {
  HipStandin standin;
  REQUIRE_THROWS_MATCHES(rdmabench::test::connect_client_on("rocm:0", Operation::write, Measurement::latency),
                         Error, MessageContains("write latency cannot run on rocm:0 memory") &&
                                    MessageContains("or --mem host here"));
  // A client without the runtime fails before it connects, as without CUDA's driver.
  ScopedEnv missing{"RDMABENCH_HIP_RUNTIME", "/nonexistent/libamdhip64.so"};
  REQUIRE_THROWS_MATCHES(rdmabench::test::connect_client_on("rocm:0", Operation::send, Measurement::latency),
                         Error, MessageContains("no HIP runtime"));
  CHECK(hip_standin_outstanding() == 0);
}
