#pragma once
// The bookkeeping of an open-loop echo's client (open_loop_echo.cpp), apart
// from the verbs so that it can be tested alone: how many messages may be
// posted now, and whether an answer is the one expected.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

/// Counts of one run: a message is in flight from its post until its
/// answer arrives, and holds a send queue slot until its own completion is
/// reaped. The two end in either order (an answer may overtake the ack of
/// its message), so both bound what may be posted.
struct EchoWindow {
  std::uint64_t window;      ///< -t: messages in flight
  std::uint64_t send_slots;  ///< the send queue's depth
  std::uint64_t sent = 0;      ///< send completions reaped
  std::uint64_t answered = 0;  ///< answers arrived

  /// How many more may be posted when `posted` have been.
  std::uint64_t room(std::uint64_t posted) const {
    const std::uint64_t in_flight = posted - answered, unreaped = posted - sent;
    return std::min(window > in_flight ? window - in_flight : 0,
                    send_slots > unreaped ? send_slots - unreaped : 0);
  }
  /// Every posted message answered and its completion reaped.
  bool settled(std::uint64_t posted) const { return answered == posted && sent == posted; }
  /// Something is owed to this side: the watchdog may count a wait as a stall.
  bool waiting(std::uint64_t posted) const { return !settled(posted); }
};

/// Throws unless an answer's immediate data (host order) carries the low 32
/// bits of `expected`, the index of the oldest message in flight: one RC
/// queue pair delivers in order, so anything else is a protocol error.
inline void check_answer_index(std::uint32_t carried, std::uint64_t expected) {
  const auto want = static_cast<std::uint32_t>(expected);
  if (carried == want) [[likely]]
    return;
  throw Error(fmt::format("protocol error: the answer expected for message {} carried index {} "
                          "(its low 32 bits are {}); the server answered out of order or another "
                          "message",
                          expected, carried, want));
}

}  // namespace rdmabench::detail
