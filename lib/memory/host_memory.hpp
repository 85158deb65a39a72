#pragma once
// Host memory providers (ordinary and huge pages), for the factory.

#include <memory>

#include "rdmabench/memory/memory.hpp"

namespace rdmabench::detail {

std::unique_ptr<MemoryProvider> make_host_memory(bool huge_pages);

}  // namespace rdmabench::detail
