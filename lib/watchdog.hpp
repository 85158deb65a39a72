#pragma once
// Notices a stuck or vanished peer from inside a spinning loop, at almost no
// cost: only every 2^20 idle spins does it read the clock and look at the
// control connection. rxe never times out a QP whose peer died (retry count 7
// means forever there), so this is what ends such a run. When a verbs call
// fails mid-run it also explains the failure, leading with the peer's fate
// when that is the cause (siw fails the next post once the peer is gone).

#include <fmt/format.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "rdmabench/control_channel.hpp"
#include "rdmabench/error.hpp"

namespace rdmabench::detail {

class Watchdog {
 public:
  Watchdog(ControlChannel& control, Milliseconds timeout, const char* waiting_for)
      : control_(control), timeout_(timeout), waiting_for_(waiting_for),
        since_(std::chrono::steady_clock::now()) {}

  /// ibv_post_send returned `rc` (its error; errno is not set).
  [[noreturn]] void post_failed(int rc);
  /// A completion carried an error status (or polling failed: n < 0).
  [[noreturn]] void completion_failed(const ibv_wc& wc, int polled = 1);

  /// What to suggest when a completion fails for a reason this test knows
  /// better than the status does.
  void set_failure_hint(std::string hint) { failure_hint_ = std::move(hint); }

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
    throw_if_peer_gone(fmt::format("while this side was waiting for {} (at message {})",
                                   waiting_for_, progress));
    if (now - since_ > timeout_)
      throw Error(fmt::format("no progress for {} ms waiting for {} (at message {})",
                              timeout_.count(), waiting_for_, progress),
                  "the peer or the fabric is stuck; raise --timeout if it is merely slow");
  }

  /// Throws when the peer closed the control connection or aborted;
  /// `context` says what this side was doing.
  void throw_if_peer_gone(const std::string& context, Milliseconds grace = Milliseconds(0));

  ControlChannel& control_;
  Milliseconds timeout_;
  const char* waiting_for_;
  std::chrono::steady_clock::time_point since_;
  std::uint64_t last_progress_ = ~0ull;
  std::uint64_t spins_ = 0;
  std::string failure_hint_;
};

}  // namespace rdmabench::detail
