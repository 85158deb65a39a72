#pragma once
// The seam between the core library and the CUDA plug-in: lib/memory/cuda/ defines
// this when the CUDA Toolkit was found at build time, cuda_unavailable.cpp
// (which says so) when it was not.

#include <memory>

#include "rdmabench/memory/memory.hpp"

namespace rdmabench::detail {

/// A provider for cuda:N or cuda-host:N; loads the driver and checks the GPU.
std::unique_ptr<MemoryProvider> make_cuda_memory(const MemoryChoice& choice);

}  // namespace rdmabench::detail
