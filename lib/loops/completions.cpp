// Reaping completions inside the timed loops: every wait goes through the
// watchdog, every failure names the work request.
#include <fmt/format.h>

#include "loops/loop_kit.hpp"

namespace rdmabench::detail {

void explain_receive_shortage(const LoopView& v, Watchdog& dog) {
  if (!uses_receives(v.spec) || retries_receiver_not_ready(v.transport.kind)) return;
  const std::string shared =
      v.shared_receive_depth ? fmt::format(", {} in the shared receive queue", v.shared_receive_depth) : "";
  dog.set_failure_hint(fmt::format(
      "{} has no receiver-not-ready retry: a send that finds no receive posted ends the "
      "connection, and a receiver that also sends (-b) or serves many QPs can fall behind; "
      "raise -r/--rx-depth (now {}{}) on both sides, e.g. -r 4096",
      to_string(v.transport.kind), v.receive_queue_depth, shared));
}

void check_received_length(std::uint32_t byte_len, std::uint64_t bytes, std::uint32_t header_bytes) {
  if (byte_len == bytes + header_bytes) [[likely]]
    return;
  throw Error(fmt::format("received a {}-byte message where {} bytes were expected{}",
                          byte_len >= header_bytes ? byte_len - header_bytes : byte_len, bytes,
                          header_bytes ? " (after the 40-byte GRH)" : ""));
}

bool reap_receive_or_marker(ibv_cq* cq, std::uint64_t bytes, std::uint32_t header_bytes,
                            Watchdog& dog, std::uint64_t progress) {
  ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(progress);
  if (n < 0 || wc.status != IBV_WC_SUCCESS) [[unlikely]]
    dog.completion_failed(wc, n);
  if (wc.byte_len == header_bytes) return true;
  check_received_length(wc.byte_len, bytes, header_bytes);
  return false;
}

void reap_receive(ibv_cq* cq, std::uint64_t bytes, std::uint32_t header_bytes, Watchdog& dog,
                  std::uint64_t progress) {
  if (reap_receive_or_marker(cq, bytes, header_bytes, dog, progress)) [[unlikely]]
    check_received_length(header_bytes, bytes, header_bytes);  // a marker where none belongs
}

bool try_reap_one(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc;
  const int n = ibv_poll_cq(cq, 1, &wc);
  if (n < 0 || (n == 1 && wc.status != IBV_WC_SUCCESS)) dog.completion_failed(wc, n);
  return n == 1;
}

void reap_one(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(0);  // no progress until it arrives
  if (n < 0 || wc.status != IBV_WC_SUCCESS) dog.completion_failed(wc, n);
}

}  // namespace rdmabench::detail
