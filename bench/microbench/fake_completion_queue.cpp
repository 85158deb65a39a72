#include "microbench/fake_completion_queue.hpp"

namespace rdmabench::microbench {

namespace {

int poll_nothing(ibv_cq*, int, ibv_wc*) { return 0; }

// Only the fields the loops read on success: the status, and a receive's length.
int poll_one_completion(ibv_cq* cq, int num_entries, ibv_wc* wc) {
  if (num_entries < 1) return 0;
  wc->status = IBV_WC_SUCCESS;
  wc->byte_len = *static_cast<const std::uint32_t*>(cq->cq_context);
  return 1;
}

}  // namespace

FakeCompletionQueue::FakeCompletionQueue(Holds holds, std::uint32_t byte_len)
    : byte_len_(byte_len) {
  context_.ops.poll_cq = holds == Holds::nothing ? poll_nothing : poll_one_completion;
  cq_.context = &context_;
  cq_.cq_context = &byte_len_;
}

}  // namespace rdmabench::microbench
