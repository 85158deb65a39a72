// --validate: after each size's timed loop, untimed, two passes in which the
// data side fills its buffer with the pattern of that pass, one message
// crosses (write or send from the client, read by the client), and the
// receiving side checks every byte. A mismatch is an error naming the offset.
// The pattern goes through a host staging buffer and the memory provider's
// copies, because the CPU cannot touch GPU memory (cuMemcpyHtoD/DtoH there).
#include <fmt/format.h>

#include <cstdlib>
#include <vector>

#include "engine/validate.hpp"
#include "loops/loop_kit.hpp"
#include "rdmabench/engine/pattern.hpp"

namespace rdmabench::detail {

namespace {

constexpr std::uint32_t kPasses = 2;

void post_one(const LoopView& v, std::uint64_t bytes, Watchdog& dog) {
  auto op = prepare_operation(v, bytes);
  op.wr.sg_list = &op.sge;
  op.wr.send_flags = op.base_flags | IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(v.qps.front().get(), &op.wr, &bad); rc != 0) dog.post_failed(rc);
  reap_one(v.cq.get(), dog);
}

/// Fault injection for the tests that prove a mismatch is caught: with
/// RDMABENCH_FAULT_CORRUPT_VALIDATION set, the data side flips one byte in
/// the middle of its pattern before sending it.
void maybe_corrupt(std::span<std::byte> data) {
  if (std::getenv("RDMABENCH_FAULT_CORRUPT_VALIDATION") && !data.empty())
    data[data.size() / 2] ^= std::byte{0x5a};
}

/// Writes the pass's pattern of `bytes` bytes to the start of `buffer`.
void put_pattern(MemoryProvider& memory, const Buffer& buffer, std::uint64_t bytes, std::uint32_t pass) {
  std::vector<std::byte> staging(static_cast<std::size_t>(bytes));
  fill_pattern(staging, pass);
  maybe_corrupt(staging);
  memory.copy_in(buffer, staging);
}

void require_pattern(MemoryProvider& memory, const Buffer& buffer, std::uint64_t bytes, std::uint32_t pass) {
  std::vector<std::byte> staging(static_cast<std::size_t>(bytes));
  memory.copy_out(buffer, staging);
  if (auto problem = check_pattern(staging, pass)) throw Error(*problem);
}

}  // namespace

void validate_size(const LoopView& v, MemoryProvider& memory, std::uint64_t bytes, std::uint32_t first_barrier) {
  Watchdog dog(v.peer, v.timeout, "the validation message");
  const bool client = v.role == Role::client;
  const bool read = v.spec.operation == Operation::read;
  for (std::uint32_t pass = 0; pass < kPasses; ++pass) {
    const std::uint32_t barrier = first_barrier + 2 * pass;
    if (read) {
      // The server's exposed buffer is the source; the client checks.
      if (!client) put_pattern(memory, v.exposed_buffer, bytes, pass);
      v.peer.barrier(barrier, v.timeout);
      if (client) {
        post_one(v, bytes, dog);
        require_pattern(memory, v.local_buffer, bytes, pass);
      }
    } else {
      // Writes and sends: the client is the source; the server checks.
      if (client) {
        put_pattern(memory, v.local_buffer, bytes, pass);
        post_one(v, bytes, dog);  // an RC completion means the data landed
      } else if (uses_receives(v.spec)) {
        // A multicast group's every receiver gets its copy (into the same
        // buffer): each is reaped here, and each receive used is put back,
        // on its receiver's QP or on the shared receive queue.
        const std::size_t copies = v.spec.multicast_receivers ? v.qps.size() : 1;
        for (std::size_t k = 0; k < copies; ++k)
          reap_receive(v.recv_cq.get(), bytes, prepare_receive(v).header_bytes, dog, pass);
        for (std::size_t k = 0; k < copies; ++k) post_one_receive(v, k);
      }
      v.peer.barrier(barrier, v.timeout);
      if (!client) require_pattern(memory, v.exposed_buffer, bytes, pass);
    }
    v.peer.barrier(barrier + 1, v.timeout);  // the checker's verdict
  }
}

}  // namespace rdmabench::detail
