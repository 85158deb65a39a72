// --validate: after each size's timed loop, untimed, two passes in which the
// data side fills its buffer with the pattern of that pass, one message
// crosses (write or send from the client, read by the client), and the
// receiving side checks every byte. A mismatch is an error naming the offset.
#include <fmt/format.h>

#include <cstdlib>

#include "engine_internal.hpp"
#include "rdmabench/pattern.hpp"

namespace rdmabench::detail {

namespace {

constexpr std::uint32_t kPasses = 2;

std::span<std::byte> first(const Buffer& buffer, std::uint64_t bytes) {
  return {buffer.data(), static_cast<std::size_t>(bytes)};
}

void post_one(Session& s, std::uint64_t bytes, Watchdog& dog) {
  auto op = prepare_operation(s, bytes);
  op.wr.sg_list = &op.sge;
  op.wr.send_flags = op.base_flags | IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(s.qps.front().get(), &op.wr, &bad); rc != 0) dog.post_failed(rc);
  reap_one(s.cq.get(), dog);
}

/// Fault injection for the tests that prove a mismatch is caught: with
/// RDMABENCH_FAULT_CORRUPT_VALIDATION set, the data side flips one byte in
/// the middle of its pattern before sending it.
void maybe_corrupt(std::span<std::byte> data) {
  if (std::getenv("RDMABENCH_FAULT_CORRUPT_VALIDATION") && !data.empty())
    data[data.size() / 2] ^= std::byte{0x5a};
}

void require_pattern(std::span<const std::byte> data, std::uint32_t pass) {
  if (auto problem = check_pattern(data, pass)) throw Error(*problem);
}

}  // namespace

void validate_size(Session& s, std::uint64_t bytes, std::uint32_t first_barrier) {
  Watchdog dog(s.control, s.timeout, "the validation message");
  const bool client = s.role == Role::client;
  const bool read = s.spec.operation == Operation::read;
  for (std::uint32_t pass = 0; pass < kPasses; ++pass) {
    const std::uint32_t barrier = first_barrier + 2 * pass;
    if (read) {
      // The server's exposed buffer is the source; the client checks.
      if (!client) {
        fill_pattern(first(s.exposed_buffer, bytes), pass);
        maybe_corrupt(first(s.exposed_buffer, bytes));
      }
      s.control.barrier(barrier, s.timeout);
      if (client) {
        post_one(s, bytes, dog);
        require_pattern(first(s.local_buffer, bytes), pass);
      }
    } else {
      // Writes and sends: the client is the source; the server checks.
      if (client) {
        fill_pattern(first(s.local_buffer, bytes), pass);
        maybe_corrupt(first(s.local_buffer, bytes));
        post_one(s, bytes, dog);  // an RC completion means the data landed
      } else if (s.spec.operation == Operation::send) {
        reap_receive(s.recv_cq.get(), bytes, dog, pass);
        post_receives(s, 1);
      }
      s.control.barrier(barrier, s.timeout);
      if (!client) require_pattern(first(s.exposed_buffer, bytes), pass);
    }
    s.control.barrier(barrier + 1, s.timeout);  // the checker's verdict
  }
}

}  // namespace rdmabench::detail
