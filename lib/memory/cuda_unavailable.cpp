// Built instead of lib/memory/cuda/ when CMake found no CUDA Toolkit: the same
// options parse, and asking for GPU memory says why it cannot be had.
#include "memory/cuda_memory.hpp"

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

std::unique_ptr<MemoryProvider> make_cuda_memory(const MemoryChoice& choice) {
  throw Error(fmt::format("--mem {}: this rdmabench was built without CUDA support", choice.name()),
              "rebuild with the CUDA Toolkit installed (CMake looks in /usr/local/cuda, or set "
              "CUDAToolkit_ROOT), or use --mem host");
}

}  // namespace rdmabench::detail
