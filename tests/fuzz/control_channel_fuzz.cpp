// Fuzz target: the control channel's receive over a socketpair. The input
// is what a peer wrote before it closed its end: the receiving side must
// hand back whole messages or throw rdmabench::Error, and never crash, hang
// (libFuzzer's -timeout) or allocate without bound (-malloc_limit_mb).
// check_peer, the watchdog's look at pending data, reads first.
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "rdmabench/control/control_channel.hpp"

namespace {

// A socketpair holds about 200 KiB before send() blocks; longer inputs add
// nothing (a frame is at most 12 bytes + 64 KiB) and would deadlock here.
constexpr std::size_t kMaxInput = 128 * 1024;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInput) return -1;  // not added to the corpus
  auto [peer, channel] = rdmabench::make_control_pair();
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::send(peer.fd(), data + sent, size - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    RDMABENCH_FUZZ_CHECK(n > 0, "send to the socketpair failed");
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(peer.fd(), SHUT_WR);  // the peer is done: what follows is EOF

  // An Abort may carry an empty reason (the wire allows it); the user must
  // still read one (corpus/control_channel/abort-without-reason).
  std::string reason;
  const auto state = channel.check_peer(reason);
  RDMABENCH_FUZZ_CHECK(state != rdmabench::PeerState::aborted || !reason.empty(),
                       "a peer gave up and the user is told no reason");
  // Each message takes at least a header, so this ends; the timeout is
  // never reached since every byte is already there or the end is.
  for (std::size_t messages = 0; messages <= size / rdmabench::wire::kHeaderSize; ++messages) {
    try {
      const auto message = channel.receive(rdmabench::Milliseconds(1000));
      rdmabench::fuzz::check_round_trip(message);
    } catch (const rdmabench::Error&) {
      return 0;  // garbage, a cut frame or the end of the input: refused by name
    }
  }
  rdmabench::fuzz::fail(__FILE__, __LINE__, "receive returned more messages than headers fit",
                        std::to_string(size));
}
