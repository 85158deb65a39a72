#pragma once
// --validate (engine/validate.cpp): after a size's timed loop, untimed.

#include <cstdint>

#include "rdmabench/memory/memory.hpp"
#include "loops/loop_view.hpp"

namespace rdmabench::detail {

/// Checks every byte of two untimed messages of `bytes`, with barriers
/// from `first_barrier` on; throws naming the first wrong byte. `memory`
/// makes the copies to and from the buffers (device copies for GPU memory).
void validate_size(const LoopView& view, MemoryProvider& memory, std::uint64_t bytes, std::uint32_t first_barrier);

}  // namespace rdmabench::detail
