#pragma once
// The order in which GPU memory is registered with the NIC, apart from the
// verbs and GPU runtime calls themselves so that the unit tests can drive it:
// dma-buf first (the upstream kernel path), then peer memory (nvidia-peermem,
// or amdgpu's peer-memory client), as --gdr allows. CUDA and ROCm share it;
// only what each path needs (their hints) differs.

#include <functional>
#include <string>

#include "rdmabench/memory/memory.hpp"

namespace rdmabench::gpu {

/// One way of registering: the region, or (failure non-empty) why not.
struct Attempt {
  MemoryRegion mr;
  std::string failure;
};
using TryRegister = std::function<Attempt()>;

/// What one vendor's paths need, for the messages when they fail.
struct RegistrationHints {
  std::string dmabuf_needs;   ///< "dma-buf needs Linux 5.12+, ..."
  std::string peermem_needs;  ///< "peer memory needs the nvidia-peermem module (...)"
  std::string instead;        ///< the last resort: "or use --mem cuda-host:N"
};

/// The hints for NVIDIA GPUs (CUDA) and AMD GPUs (ROCm).
const RegistrationHints& cuda_registration_hints();
const RegistrationHints& rocm_registration_hints();

/// Registers by `mode`: automatic tries `dmabuf` then `peermem`; a forced
/// mode tries only its own and fails naming it. In automatic mode, `mode`
/// becomes the path that worked, so the next buffer goes straight there and
/// both buffers of a run are registered alike. `memory` ("cuda:0") is for
/// messages.
Registration register_gpu_memory(GdrMode& mode, const std::string& memory, const RegistrationHints& hints,
                                 const TryRegister& dmabuf, const TryRegister& peermem);

}  // namespace rdmabench::gpu
