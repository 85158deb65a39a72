// The order of GPU memory registration (dma-buf, then peer memory) and what
// --gdr forces, driven with fake attempts; the real calls run in the lab.
#include "catch2_compat.hpp"

#include "memory/cuda/gpu_registration.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::cuda::Attempt;
using rdmabench::cuda::register_gpu_memory;
using rdmabench::test::MessageContains;

namespace {

/// A fake registration route that records how often it was tried. Success
/// is an empty failure (the region stays empty: there is no NIC here).
struct Route {
  std::string failure;
  int tries = 0;
  cuda::TryRegister fn() {
    return [this] {
      ++tries;
      return Attempt{{}, failure};
    };
  }
};

}  // namespace

TEST_CASE("gpu registration: auto takes dma-buf when it works", "[cuda]") {
  Route dmabuf, peermem;
  GdrMode mode = GdrMode::automatic;
  CHECK(register_gpu_memory(mode, "cuda:0", dmabuf.fn(), peermem.fn()).path == RegistrationPath::dmabuf);
  CHECK(dmabuf.tries == 1);
  CHECK(peermem.tries == 0);
  CHECK(mode == GdrMode::dmabuf);
}

TEST_CASE("gpu registration: auto falls back to peer memory, then stays there", "[cuda]") {
  Route dmabuf{"ibv_reg_dmabuf_mr failed: Operation not supported"}, peermem;
  GdrMode mode = GdrMode::automatic;
  CHECK(register_gpu_memory(mode, "cuda:0", dmabuf.fn(), peermem.fn()).path == RegistrationPath::peermem);
  CHECK(mode == GdrMode::peermem);
  // The second buffer of the run goes straight to what worked.
  CHECK(register_gpu_memory(mode, "cuda:0", dmabuf.fn(), peermem.fn()).path == RegistrationPath::peermem);
  CHECK(dmabuf.tries == 1);
  CHECK(peermem.tries == 2);
}

TEST_CASE("gpu registration: auto with both failing names both reasons", "[cuda]") {
  Route dmabuf{"cuMemGetHandleForAddressRange failed: operation not supported"},
      peermem{"ibv_reg_mr on the device pointer failed: Bad address"};
  GdrMode mode = GdrMode::automatic;
  REQUIRE_THROWS_MATCHES(register_gpu_memory(mode, "cuda:1", dmabuf.fn(), peermem.fn()), Error,
                         MessageContains("cannot register cuda:1 memory for RDMA: dma-buf: "
                                         "cuMemGetHandleForAddressRange failed: operation not supported; "
                                         "peer memory: ibv_reg_mr on the device pointer failed: Bad address"));
  CHECK(mode == GdrMode::automatic);
}

TEST_CASE("gpu registration: --gdr dmabuf never falls back", "[cuda]") {
  Route dmabuf{"ibv_reg_dmabuf_mr failed: Operation not supported"}, peermem;
  GdrMode mode = GdrMode::dmabuf;
  REQUIRE_THROWS_MATCHES(register_gpu_memory(mode, "cuda:0", dmabuf.fn(), peermem.fn()), Error,
                         MessageContains("--gdr dmabuf: cannot register cuda:0 memory as a dma-buf: "
                                         "ibv_reg_dmabuf_mr failed: Operation not supported"));
  CHECK(peermem.tries == 0);
}

TEST_CASE("gpu registration: --gdr peermem never tries dma-buf", "[cuda]") {
  Route dmabuf, peermem{"ibv_reg_mr on the device pointer failed: Bad address"};
  GdrMode mode = GdrMode::peermem;
  REQUIRE_THROWS_MATCHES(register_gpu_memory(mode, "cuda:0", dmabuf.fn(), peermem.fn()), Error,
                         MessageContains("modprobe nvidia-peermem"));
  CHECK(dmabuf.tries == 0);
  peermem.failure.clear();
  CHECK(register_gpu_memory(mode, "cuda:0", dmabuf.fn(), peermem.fn()).path == RegistrationPath::peermem);
  CHECK(dmabuf.tries == 0);
}
