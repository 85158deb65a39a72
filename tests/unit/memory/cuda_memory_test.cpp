// The CUDA plug-in against the stand-in driver (tests/gpu_standin: host
// memory behind the CUDA entry points), loaded the way the real driver is,
// through RDMABENCH_CUDA_DRIVER. What needs a real GPU (dma-buf export that
// a NIC accepts, GPUDirect traffic) is checked by tools/gpu-check.
#include "catch2_compat.hpp"
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/memory/memory.hpp"
#include "rdmabench/engine/pattern.hpp"
#include "rdmabench/control/session.hpp"
#include "gpu_standin_probe.hpp"
#include "test_helpers.hpp"
#include "../scoped_env.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

namespace {

/// Sets (or, with nullopt, unsets) an environment variable for one scope.
using rdmabench::test::ScopedEnv;

/// The stand-in as the driver, with its knobs at their defaults.
struct StandinDriver {
  ScopedEnv driver{"RDMABENCH_CUDA_DRIVER", RDMABENCH_CUDA_STANDIN};
  ScopedEnv devices{"CUDA_STANDIN_DEVICES", std::nullopt};
  ScopedEnv dmabuf{"CUDA_STANDIN_DMABUF", std::nullopt};
};

int standin_outstanding() { return rdmabench::test::standin_outstanding(RDMABENCH_CUDA_STANDIN); }

using rdmabench::test::connect_client_on;
using rdmabench::test::read_back;

}  // namespace

TEST_CASE("cuda memory: without a driver, asking for it says so", "[cuda]") {
  ScopedEnv driver{"RDMABENCH_CUDA_DRIVER", "/nonexistent/libcuda.so.1"};
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("cuda:0")), Error,
                         MessageContains("--mem cuda:0: no CUDA driver: cannot load /nonexistent/libcuda.so.1"));
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("cuda-host:0")), Error,
                         MessageContains("set RDMABENCH_CUDA_DRIVER to its path"));
  // Host memory never touches the driver.
  CHECK(make_memory_provider(parse_memory_choice("host"))->name() == "host");
}

TEST_CASE("cuda memory: a driver without GPUs, or too few, names what it found", "[cuda]") {
  StandinDriver standin;
  {
    ScopedEnv none{"CUDA_STANDIN_DEVICES", "0"};
    REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("cuda:0")), Error,
                           MessageContains("--mem cuda:0: no CUDA device 0 (found 0): cuInit failed: no "
                                           "CUDA-capable device is detected (CUDA_ERROR_NO_DEVICE)"));
  }
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("cuda:1")), Error,
                         MessageContains("--mem cuda:1: no CUDA device 1 (found 1) (valid: 0 to 0"));
  CHECK(standin_outstanding() == 0);
}

TEST_CASE("cuda memory: --cuda-bus-id finds the GPU at that PCI address", "[cuda]") {
  StandinDriver standin;
  ScopedEnv two{"CUDA_STANDIN_DEVICES", "2"};
  auto choice = parse_memory_choice("cuda");
  choice.cuda_bus_id = "0000:11:00.0";  // the stand-in's second GPU
  CHECK_THAT(make_memory_provider(choice)->device_description(), Catch::StartsWith("stand-in GPU 1"));
  choice.cuda_bus_id = "3b:00.0";
  REQUIRE_THROWS_MATCHES(make_memory_provider(choice), Error,
                         MessageContains("--mem cuda:3b:00.0: no CUDA device at PCI 3b:00.0: "
                                         "cuDeviceGetByPCIBusId failed"));
  CHECK(standin_outstanding() == 0);
}

TEST_CASE("cuda memory: device buffers are zeroed, GPU-sized and reached by device copies", "[cuda]") {
  StandinDriver standin;
  {
    auto memory = make_memory_provider(parse_memory_choice("cuda:0"));
    CHECK(memory->name() == "cuda:0");
    CHECK_FALSE(memory->cpu_accessible());
    CHECK_THAT(memory->device_description(), Catch::Contains("CUDA stand-in driver (host memory, no GPU)"));
    Buffer buffer = memory->allocate(1000);
    CHECK(buffer.size() == 64u << 10);  // whole 64 KiB GPU pages
    // The stand-in fills fresh memory with 0xa5, as real device memory is
    // not zeroed: zeros here mean the provider cleared it.
    CHECK(read_back(*memory, buffer, buffer.size()) == std::vector<std::byte>(buffer.size()));

    std::vector<std::byte> pattern(1000);
    fill_pattern(pattern, 1);
    memory->copy_in(buffer, pattern);
    auto back = read_back(*memory, buffer, pattern.size());
    CHECK_FALSE(check_pattern(back, 1).has_value());
    CHECK(check_pattern(back, 0).has_value());
    REQUIRE_THROWS_MATCHES(memory->copy_in(buffer, std::vector<std::byte>(buffer.size() + 1)), Error,
                           MessageContains("smaller than the data"));

    Buffer outlives = memory->allocate(1);
    memory.reset();  // buffers keep the GPU context (and driver) they need
    CHECK(standin_outstanding() > 0);
  }
  CHECK(standin_outstanding() == 0);
}

TEST_CASE("cuda memory: cuda-host is pinned host memory the CPU can touch", "[cuda]") {
  StandinDriver standin;
  {
    auto memory = make_memory_provider(parse_memory_choice("cuda-host:0"));
    CHECK(memory->name() == "cuda-host:0");
    CHECK(memory->cpu_accessible());
    Buffer buffer = memory->allocate(100);
    CHECK(buffer.size() >= 100);
    CHECK(buffer.data()[99] == std::byte{0});
    buffer.data()[99] = std::byte{7};
    CHECK(read_back(*memory, buffer, 100)[99] == std::byte{7});
  }
  CHECK(standin_outstanding() == 0);
}

TEST_CASE("cuda memory: write latency refuses GPU memory before connecting", "[cuda]") {
  StandinDriver standin;
  REQUIRE_THROWS_MATCHES(connect_client_on("cuda:0", Operation::write, Measurement::latency), Error,
                         MessageContains("write latency cannot run on cuda:0 memory: its loop polls the "
                                         "last byte of the buffer from the CPU"));
  REQUIRE_THROWS_MATCHES(connect_client_on("cuda:0", Operation::write, Measurement::latency), Error,
                         MessageContains("give --write-with-imm (the target then polls a completion queue), or use rdma_send_lat"));
  // Pinned host memory is CPU memory: the same test gets as far as the network.
  REQUIRE_THROWS_MATCHES(connect_client_on("cuda-host:0", Operation::write, Measurement::latency), Error,
                         !MessageContains("write latency cannot run"));
  CHECK(standin_outstanding() == 0);
}

TEST_CASE("cuda memory: a missing driver fails a client before it connects", "[cuda]") {
  ScopedEnv driver{"RDMABENCH_CUDA_DRIVER", "/nonexistent/libcuda.so.1"};
  REQUIRE_THROWS_MATCHES(connect_client_on("cuda:0", Operation::send, Measurement::latency), Error,
                         MessageContains("no CUDA driver"));
}
