#pragma once
/// @file
/// The send schedule of an open-loop run (--rate, --burst): message i is due
/// at a fixed time decided before the run, whatever happened to the messages
/// before it. Latency is then counted from that time, so a stall charges
/// every message it held up, not just the one that met it (coordinated
/// omission; wrk2's constant-throughput method).

#include <algorithm>
#include <cstdint>
#include <limits>

namespace rdmabench {

// 128-bit products keep the fixed-point schedule exact; GCC and Clang have
// them on every 64-bit target (__extension__ keeps -Wpedantic quiet).
__extension__ typedef unsigned __int128 PacerWide;

/// Clock ticks between messages at `messages_per_second` on a clock of
/// `ticks_per_us` (ClockInfo::ticks_per_us). Throws Error unless both are
/// positive and finite and the interval fits the Pacer (below 2^53 ticks).
double ticks_per_message(double messages_per_second, double ticks_per_us);

/// Releases messages on the schedule intended(i) = start + i * interval.
///
/// The rule, and why:
/// - No drift: intended(i) is computed from i, in 64.64-bit fixed point, and
///   never by adding intervals (which would add a rounding per message), so
///   the last message of a 24-hour run is due within a tick of
///   start + i * interval.
/// - Never early: due() never releases message i before intended(i), so a
///   response time (from intended) is never shorter than the service time
///   (from the post).
/// - Never skipped: after a stall the schedule does not move and no slot is
///   dropped. Every late message is still sent and charged from its own
///   intended time; a pacer that re-based its schedule or dropped the missed
///   slots would hide the stall again.
/// - Bursts: one call releases at most `burst` messages, on schedule (a
///   poster that woke late finds several due) or catching up. After a stall
///   the backlog leaves `burst` at a time, as fast as the caller comes back
///   (wrk2-like); the caller's in-flight window bounds how many are
///   outstanding, so the catch-up pace is the window's, and no single post
///   chain is longer than `burst`.
///
/// Ticks are uint64 clock ticks; intended() saturates at the largest one
/// rather than wrap, which a run would need centuries to reach.
class Pacer {
 public:
  /// Throws Error unless `ticks_per_message` is positive, finite and below
  /// 2^53, and `burst` is at least 1.
  Pacer(std::uint64_t start_ticks, double ticks_per_message, std::uint64_t burst);

  /// When message `i` (0-based) is due.
  std::uint64_t intended(std::uint64_t i) const noexcept {
    const PacerWide due = PacerWide{start_} + PacerWide{i} * interval_whole_ +
                          ((PacerWide{i} * interval_fraction_) >> 64);
    return due > kMaxTicks ? kMaxTicks : static_cast<std::uint64_t>(due);
  }

  /// How many messages may be posted at `now`: those already due and not yet
  /// posted, at most `burst`. The caller posts up to that many and reports
  /// them with mark_posted().
  std::uint64_t due(std::uint64_t now) const noexcept {
    if (intended(posted_) > now) return 0;
    if (intended(posted_ + burst_ - 1) <= now) return burst_;
    // Message posted_ is due, posted_ + burst_ - 1 is not: the count of due
    // ones lies in [1, burst_).
    std::uint64_t low = 1, high = burst_ - 1;
    while (low < high) {
      const std::uint64_t mid = low + (high - low + 1) / 2;
      if (intended(posted_ + mid - 1) <= now) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /// Counts `k` more messages as posted; `k` is at most what due() allowed.
  void mark_posted(std::uint64_t k) noexcept { posted_ += k; }

  /// When the next message to post is due: spin until then.
  std::uint64_t next_due_ticks() const noexcept { return intended(posted_); }

  std::uint64_t posted() const noexcept { return posted_; }
  std::uint64_t burst() const noexcept { return burst_; }
  /// The interval, as the fixed point holds it.
  double ticks_per_message() const noexcept;

 private:
  static constexpr std::uint64_t kMaxTicks = std::numeric_limits<std::uint64_t>::max();

  std::uint64_t start_;
  std::uint64_t interval_whole_;     // whole ticks per message
  std::uint64_t interval_fraction_;  // and the rest, in units of 2^-64 tick
  std::uint64_t burst_;
  std::uint64_t posted_ = 0;
};

}  // namespace rdmabench
