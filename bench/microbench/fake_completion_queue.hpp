#pragma once
// A completion queue without a device, for timing the loops' own code.
// ibv_poll_cq() is an inline that calls cq->context->ops.poll_cq, so an
// ibv_cq whose context's table points at a function of ours lets the
// library's reaping (reap_one, try_reap_one, reap_receive) run unchanged.
// Its poll is a call and two stores, where a provider's reads a CQE the NIC
// wrote: what loop_overhead measures on it is what our loops add around a
// poll, not what the provider's poll costs (perftest pays that too).

#include <infiniband/verbs.h>

#include <cstdint>

namespace rdmabench::microbench {

class FakeCompletionQueue {
 public:
  enum class Holds { nothing, completions };

  /// Every poll of a queue that holds completions returns one successful
  /// completion of `byte_len` bytes (what a receive's length check reads).
  explicit FakeCompletionQueue(Holds holds, std::uint32_t byte_len = 0);
  FakeCompletionQueue(const FakeCompletionQueue&) = delete;
  FakeCompletionQueue& operator=(const FakeCompletionQueue&) = delete;

  ibv_cq* get() { return &cq_; }

 private:
  ibv_context context_{};  ///< only its ops.poll_cq is read
  ibv_cq cq_{};            ///< context points at context_, cq_context at byte_len_
  std::uint32_t byte_len_;
};

}  // namespace rdmabench::microbench
