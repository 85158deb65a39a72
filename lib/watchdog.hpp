#pragma once
// Notices a stuck or vanished peer from inside a spinning loop, at almost no
// cost: only every few thousand idle spins does it read the clock and look at
// the control connection. rxe never times out a QP whose peer died (retry
// count 7 means forever there), so this is what ends such a run.

#include <fmt/format.h>

#include <chrono>
#include <cstdint>

#include "rdmabench/control_channel.hpp"
#include "rdmabench/error.hpp"

namespace rdmabench::detail {

class Watchdog {
 public:
  Watchdog(ControlChannel& control, Milliseconds timeout, const char* waiting_for)
      : control_(control), timeout_(timeout), waiting_for_(waiting_for),
        since_(std::chrono::steady_clock::now()) {}

  /// Call on every idle spin; `progress` is any counter that grows.
  void idle(std::uint64_t progress) {
    if ((++spins_ & kCheckMask) == 0) [[unlikely]] check(progress);
  }

 private:
  // About a millisecond of spinning on hardware, tens under emulation: often
  // enough to notice a dead peer quickly, rare enough to cost nothing.
  static constexpr std::uint64_t kCheckMask = (1u << 20) - 1;

  [[gnu::noinline]] void check(std::uint64_t progress) {
    const auto now = std::chrono::steady_clock::now();
    if (progress != last_progress_) {
      last_progress_ = progress;
      since_ = now;
    }
    std::string reason;
    switch (control_.check_peer(reason)) {
      case PeerState::closed:
        throw Error(fmt::format("{} closed the control connection mid-run while this side was "
                                "waiting for {} (at message {})",
                                control_.peer_name(), waiting_for_, progress),
                    "the peer exited or crashed; see its output");
      case PeerState::aborted:
        throw Error(fmt::format("{} gave up mid-run: {}", control_.peer_name(), reason));
      case PeerState::alive: break;
    }
    if (now - since_ > timeout_)
      throw Error(fmt::format("no progress for {} ms waiting for {} (at message {})",
                              timeout_.count(), waiting_for_, progress),
                  "the peer or the fabric is stuck; raise --timeout if it is merely slow");
  }

  ControlChannel& control_;
  Milliseconds timeout_;
  const char* waiting_for_;
  std::chrono::steady_clock::time_point since_;
  std::uint64_t last_progress_ = ~0ull;
  std::uint64_t spins_ = 0;
};

}  // namespace rdmabench::detail
