// The memory registry: a --mem choice becomes its provider, and the memory
// policy refuses a test whose loop the memory cannot serve.
#include <fmt/format.h>

#include "memory/cuda_memory.hpp"
#include "memory/host_memory.hpp"
#include "memory/memory_policy.hpp"
#include "memory/rocm_memory.hpp"
#include "rdmabench/verbs/error.hpp"
#include "control/access_flags.hpp"

namespace rdmabench {

std::unique_ptr<MemoryProvider> make_memory_provider(const MemoryChoice& choice) {
  switch (choice.kind) {
    case MemoryChoice::Kind::host: return detail::make_host_memory(false);
    case MemoryChoice::Kind::hugepage: return detail::make_host_memory(true);
    case MemoryChoice::Kind::cuda:
    case MemoryChoice::Kind::cuda_host: return detail::make_cuda_memory(choice);
    case MemoryChoice::Kind::rocm: return detail::make_rocm_memory(choice);
  }
  throw Error("unknown memory kind");
}

namespace detail {

std::unique_ptr<MemoryProvider> prepare_memory(const MemoryChoice& choice, const TestSpec& spec) {
  auto memory = make_memory_provider(choice);
  const bool polls_buffer = cpu_polls_exposed_buffer(spec);
  require(!polls_buffer || memory->cpu_accessible(),
          fmt::format("write latency cannot run on {} memory: its loop polls the last byte of the "
                      "buffer from the CPU, which cannot read GPU memory",
                      memory->name()),
          fmt::format("give --write-with-imm (the target then polls a completion queue), or use "
                      "rdma_send_lat, or --mem {} here",
                      choice.is_cuda() ? "cuda-host:N" : "host"));
  return memory;
}

}  // namespace detail

}  // namespace rdmabench
