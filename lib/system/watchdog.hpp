#pragma once
// Notices a stuck or vanished peer from inside a spinning loop, at almost no
// cost: every 2^20 idle spins it compares a progress counter, and only when
// that has not moved since the last look does it read the clock and look at
// the peer's out-of-band channel (the Bootstrap). rxe never times out a QP whose peer died (retry
// count 7 means forever there), so this is what ends such a run. When a
// verbs call fails mid-run it also explains the failure, leading with the
// peer's fate when that is the cause (siw fails the next post once the peer
// is gone).

#include <fmt/format.h>
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "rdmabench/control/bootstrap.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

class Watchdog {
 public:
  Watchdog(Bootstrap& control, Milliseconds timeout, const char* waiting_for)
      : control_(control), peer_silent_(control.silence_flag()), timeout_(timeout),
        waiting_for_(waiting_for) {}

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

  /// Call from a loop that sleeps instead of spinning (-e), at least once
  /// per slice of its sleep: the look idle() takes every 2^20 spins.
  void look(std::uint64_t progress) { check(progress); }

  /// Call once per poll in loops that progress without the peer's CPU (a
  /// one-sided initiator, whose target's NIC serves while its process is
  /// stopped): ends the run when the heartbeat thread found the peer silent.
  void watch(std::uint64_t progress) {
    if (peer_silent_.load(std::memory_order_relaxed)) [[unlikely]] peer_went_silent(progress);
  }

 private:
  // About a millisecond of spinning on hardware, tens under emulation: often
  // enough to notice a dead peer quickly, rare enough to cost nothing.
  static constexpr std::uint64_t kCheckMask = (1u << 20) - 1;

  /// A run that moved on since the last look costs one comparison: the
  /// clock read, the socket poll (two system calls) and the message text
  /// are spent only on a run that has stood still. A look that lands inside
  /// a microsecond-scale latency sample would otherwise lengthen it.
  [[gnu::noinline]] void check(std::uint64_t progress);
  [[noreturn, gnu::noinline]] void peer_went_silent(std::uint64_t progress);
  /// "while this side was waiting for ... (at message N)", for a message.
  std::string waiting_context(std::uint64_t progress) const;

  /// Throws when the peer closed the control connection or aborted, waiting
  /// up to `grace` for that to show; `context()` says what this side was
  /// doing, and is formatted only then.
  template <typename Context>
  void throw_if_peer_gone(Context context, Milliseconds grace = Milliseconds(0)) {
    std::string reason;
    if (const PeerState state = peer_state(grace, reason); state != PeerState::alive)
      throw_peer_gone(state, reason, context());
  }
  PeerState peer_state(Milliseconds grace, std::string& reason);
  /// A cut link or a stopped peer often shows first as a failed completion
  /// or post, once the far side has given up and torn down its memory (a
  /// "remote access error" names no cut link). When the peer has been quiet
  /// for half the timeout already, waits (at most the rest of it and one
  /// heartbeat) for the heartbeat thread to call it silent, and then throws
  /// saying so, with `what` failed beside it.
  void throw_if_peer_fell_silent(const std::string& what);
  /// Whether the heartbeat thread calls the peer silent within the wait
  /// throw_if_peer_fell_silent describes (false at once when the peer spoke
  /// within half the timeout); throws if the peer is gone meanwhile, with
  /// `context`.
  bool silent_soon(const std::string& context);
  [[noreturn]] void throw_peer_gone(PeerState state, const std::string& reason,
                                    const std::string& context);

  Bootstrap& control_;
  const std::atomic<bool>& peer_silent_;
  Milliseconds timeout_;
  const char* waiting_for_;
  std::uint64_t last_progress_ = ~0ull;
  bool stalled_ = false;  ///< no progress at the last look
  std::chrono::steady_clock::time_point stalled_since_;
  std::uint64_t spins_ = 0;
  std::string failure_hint_;
};

}  // namespace rdmabench::detail
