#pragma once
// Which memory can serve which test.

#include <memory>

#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/memory/memory.hpp"

namespace rdmabench::detail {

/// The provider of `choice`, made before any connection so that a missing
/// GPU driver or device fails first; refuses a test whose loop the memory
/// cannot serve (write latency polls a byte the CPU cannot read in GPU
/// memory).
std::unique_ptr<MemoryProvider> prepare_memory(const MemoryChoice& choice, const TestSpec& spec);

}  // namespace rdmabench::detail
