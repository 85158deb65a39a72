#include "memory/gpu/gpu_registration.hpp"

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::gpu {

const RegistrationHints& cuda_registration_hints() {
  static const RegistrationHints hints{
      "dma-buf needs Linux 5.12+, rdma-core 34+, a NIC driver that imports dma-bufs and the NVIDIA "
      "open kernel module",
      "peer memory needs the nvidia-peermem module (modprobe nvidia-peermem)", "or use --mem cuda-host:N"};
  return hints;
}

// amdgpu exports dma-bufs of VRAM only to importers that can follow a move
// (CONFIG_DMABUF_MOVE_NOTIFY) over PCIe peer-to-peer (CONFIG_PCI_P2PDMA).
// Peer memory is amdgpu's client of the peer-memory interface, which the
// ROCm DKMS driver carries and an MLNX_OFED/DOCA NIC stack calls.
const RegistrationHints& rocm_registration_hints() {
  static const RegistrationHints hints{
      "dma-buf needs Linux 5.12+ built with CONFIG_DMABUF_MOVE_NOTIFY and CONFIG_PCI_P2PDMA, rdma-core 34+, "
      "a NIC driver that imports dma-bufs and a ROCm whose HIP has hipMemGetHandleForAddressRange",
      "peer memory needs ROCm's amdgpu DKMS driver (its peer-memory client) and a NIC stack with peer-memory "
      "support (MLNX_OFED or DOCA)",
      "or use --mem host"};
  return hints;
}

Registration register_gpu_memory(GdrMode& mode, const std::string& memory, const RegistrationHints& hints,
                                 const TryRegister& dmabuf, const TryRegister& peermem) {
  std::string dmabuf_failure;
  if (mode != GdrMode::peermem) {
    Attempt a = dmabuf();
    if (a.failure.empty()) {
      mode = GdrMode::dmabuf;
      return {std::move(a.mr), RegistrationPath::dmabuf};
    }
    if (mode == GdrMode::dmabuf)
      throw Error(fmt::format("--gdr dmabuf: cannot register {} memory as a dma-buf: {}", memory, a.failure),
                  hints.dmabuf_needs + "; or try --gdr peermem");
    dmabuf_failure = std::move(a.failure);
  }
  Attempt a = peermem();
  if (a.failure.empty()) {
    mode = GdrMode::peermem;
    return {std::move(a.mr), RegistrationPath::peermem};
  }
  if (mode == GdrMode::peermem)
    throw Error(fmt::format("--gdr peermem: cannot register {} memory through peer memory: {}", memory,
                            a.failure),
                hints.peermem_needs + "; or try --gdr dmabuf");
  throw Error(fmt::format("cannot register {} memory for RDMA: dma-buf: {}; peer memory: {}", memory,
                          dmabuf_failure, a.failure),
              hints.dmabuf_needs + "; " + hints.peermem_needs + "; " + hints.instead);
}

}  // namespace rdmabench::gpu
