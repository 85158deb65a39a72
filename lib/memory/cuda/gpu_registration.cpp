#include "memory/cuda/gpu_registration.hpp"

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::cuda {

namespace {

const std::string kDmabufNeeds =
    "dma-buf needs Linux 5.12+, rdma-core 34+, a NIC driver that imports dma-bufs and the NVIDIA "
    "open kernel module";
const std::string kPeermemNeeds = "peer memory needs the nvidia-peermem module (modprobe nvidia-peermem)";

}  // namespace

Registration register_gpu_memory(GdrMode& mode, const std::string& memory, const TryRegister& dmabuf,
                                 const TryRegister& peermem) {
  std::string dmabuf_failure;
  if (mode != GdrMode::peermem) {
    Attempt a = dmabuf();
    if (a.failure.empty()) {
      mode = GdrMode::dmabuf;
      return {std::move(a.mr), RegistrationPath::dmabuf};
    }
    if (mode == GdrMode::dmabuf)
      throw Error(fmt::format("--gdr dmabuf: cannot register {} memory as a dma-buf: {}", memory, a.failure),
                  kDmabufNeeds + "; or try --gdr peermem");
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
                kPeermemNeeds + "; or try --gdr dmabuf");
  throw Error(fmt::format("cannot register {} memory for RDMA: dma-buf: {}; peer memory: {}", memory,
                          dmabuf_failure, a.failure),
              kDmabufNeeds + "; " + kPeermemNeeds + "; or use --mem cuda-host:N");
}

}  // namespace rdmabench::cuda
