// The order of GPU memory registration (dma-buf, then peer memory) and what
// --gdr forces, driven with fake attempts; the real calls run in the lab.
// CUDA and ROCm share the order; each names what its own paths need.
#include "catch2_compat.hpp"

#include "memory/gpu/gpu_registration.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::gpu::Attempt;
using rdmabench::gpu::cuda_registration_hints;
using rdmabench::gpu::rocm_registration_hints;
using rdmabench::test::MessageContains;

namespace {

/// A fake registration route that records how often it was tried. Success
/// is an empty failure (the region stays empty: there is no NIC here).
struct Route {
  std::string failure;
  int tries = 0;
  gpu::TryRegister fn() {
    return [this] {
      ++tries;
      return Attempt{{}, failure};
    };
  }
};

/// Registers `memory` ("cuda:0", "rocm:0") with the hints of its maker.
Registration attempt(GdrMode& mode, const std::string& memory, Route& dmabuf, Route& peermem) {
  const auto& hints = memory.rfind("rocm", 0) == 0 ? rocm_registration_hints() : cuda_registration_hints();
  return gpu::register_gpu_memory(mode, memory, hints, dmabuf.fn(), peermem.fn());
}

}  // namespace

TEST_CASE("gpu registration: auto takes dma-buf when it works", "[gpu]") {
  Route dmabuf, peermem;
  GdrMode mode = GdrMode::automatic;
  CHECK(attempt(mode, "cuda:0", dmabuf, peermem).path == RegistrationPath::dmabuf);
  CHECK(dmabuf.tries == 1);
  CHECK(peermem.tries == 0);
  CHECK(mode == GdrMode::dmabuf);
}

TEST_CASE("gpu registration: auto falls back to peer memory, then stays there", "[gpu]") {
  Route dmabuf{"ibv_reg_dmabuf_mr failed: Operation not supported"}, peermem;
  GdrMode mode = GdrMode::automatic;
  CHECK(attempt(mode, "cuda:0", dmabuf, peermem).path == RegistrationPath::peermem);
  CHECK(mode == GdrMode::peermem);
  // The second buffer of the run goes straight to what worked.
  CHECK(attempt(mode, "cuda:0", dmabuf, peermem).path == RegistrationPath::peermem);
  CHECK(dmabuf.tries == 1);
  CHECK(peermem.tries == 2);
}

TEST_CASE("gpu registration: auto with both failing names both reasons", "[gpu]") {
  Route dmabuf{"cuMemGetHandleForAddressRange failed: operation not supported"},
      peermem{"ibv_reg_mr on the device pointer failed: Bad address"};
  GdrMode mode = GdrMode::automatic;
  REQUIRE_THROWS_MATCHES(attempt(mode, "cuda:1", dmabuf, peermem), Error,
                         MessageContains("cannot register cuda:1 memory for RDMA: dma-buf: "
                                         "cuMemGetHandleForAddressRange failed: operation not supported; "
                                         "peer memory: ibv_reg_mr on the device pointer failed: Bad address"));
  CHECK(mode == GdrMode::automatic);
}

TEST_CASE("gpu registration: --gdr dmabuf never falls back", "[gpu]") {
  Route dmabuf{"ibv_reg_dmabuf_mr failed: Operation not supported"}, peermem;
  GdrMode mode = GdrMode::dmabuf;
  REQUIRE_THROWS_MATCHES(attempt(mode, "cuda:0", dmabuf, peermem), Error,
                         MessageContains("--gdr dmabuf: cannot register cuda:0 memory as a dma-buf: "
                                         "ibv_reg_dmabuf_mr failed: Operation not supported"));
  CHECK(peermem.tries == 0);
}

TEST_CASE("gpu registration: --gdr peermem never tries dma-buf", "[gpu]") {
  Route dmabuf, peermem{"ibv_reg_mr on the device pointer failed: Bad address"};
  GdrMode mode = GdrMode::peermem;
  REQUIRE_THROWS_MATCHES(attempt(mode, "cuda:0", dmabuf, peermem), Error,
                         MessageContains("modprobe nvidia-peermem"));
  CHECK(dmabuf.tries == 0);
  peermem.failure.clear();
  CHECK(attempt(mode, "cuda:0", dmabuf, peermem).path == RegistrationPath::peermem);
  CHECK(dmabuf.tries == 0);
}

TEST_CASE("gpu registration: ROCm memory names what AMD's paths need", "[gpu][rocm]") {
  Route dmabuf{"hipMemGetHandleForAddressRange failed: operation not supported (hipErrorNotSupported)"},
      peermem{"ibv_reg_mr on the device pointer failed: Bad address"};
  GdrMode mode = GdrMode::automatic;
  REQUIRE_THROWS_MATCHES(attempt(mode, "rocm:0", dmabuf, peermem),
                         Error, MessageContains("cannot register rocm:0 memory for RDMA: dma-buf: "
                                                "hipMemGetHandleForAddressRange failed"));
  REQUIRE_THROWS_MATCHES(attempt(mode, "rocm:0", dmabuf, peermem),
                         Error, MessageContains("CONFIG_DMABUF_MOVE_NOTIFY") && MessageContains("amdgpu DKMS") &&
                                    MessageContains("or use --mem host") && !MessageContains("nvidia"));
  mode = GdrMode::peermem;
  REQUIRE_THROWS_MATCHES(attempt(mode, "rocm:0", dmabuf, peermem),
                         Error, MessageContains("--gdr peermem: cannot register rocm:0 memory through peer memory"));
}
