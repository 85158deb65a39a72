#pragma once
// The seam between the core library and the ROCm plug-in (lib/memory/rocm/),
// which is always built: it needs no ROCm headers, and loads the HIP
// runtime only when ROCm memory is asked for.

#include <memory>

#include "rdmabench/memory/memory.hpp"

namespace rdmabench::detail {

/// A provider for rocm:N; loads the HIP runtime and checks the GPU.
std::unique_ptr<MemoryProvider> make_rocm_memory(const MemoryChoice& choice);

}  // namespace rdmabench::detail
