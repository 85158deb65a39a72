#pragma once
// The order in which GPU memory is registered with the NIC, apart from the
// verbs and CUDA calls themselves so that the unit tests can drive it: dma-buf
// first (the upstream kernel path), then peer memory (nvidia-peermem), as
// --gdr allows.

#include <functional>
#include <string>

#include "rdmabench/memory/memory.hpp"

namespace rdmabench::cuda {

/// One way of registering: the region, or (failure non-empty) why not.
struct Attempt {
  MemoryRegion mr;
  std::string failure;
};
using TryRegister = std::function<Attempt()>;

/// Registers by `mode`: automatic tries `dmabuf` then `peermem`; a forced
/// mode tries only its own and fails naming it. In automatic mode, `mode`
/// becomes the path that worked, so the next buffer goes straight there and
/// both buffers of a run are registered alike. `memory` ("cuda:0") is for
/// messages.
Registration register_gpu_memory(GdrMode& mode, const std::string& memory, const TryRegister& dmabuf,
                                 const TryRegister& peermem);

}  // namespace rdmabench::cuda
