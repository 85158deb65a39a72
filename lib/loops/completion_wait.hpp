#pragma once
// What a timed loop does when a poll of its completion queue finds nothing.
// Busy polling (the default) polls again at once, and the watchdog counts
// the spins. With -e/--use-event the loop sleeps on the connection's
// completion channel instead, as perftest's -e does, so that a run costs
// the CPU its work needs and not a core spent waiting (--cpu-util shows it).
//
// Sleeping safely takes three steps, each call doing one: a CQ found empty
// is armed (ibv_req_notify_cq) and the caller polls it again at once, since
// a completion that arrived before the arming raises no event; only a CQ
// found empty after its arming is slept on; an event taken disarms its CQ,
// which the next empty poll arms again. Every sleep is a slice of at most
// kSlice, after which the watchdog looks at the peer and at the run's
// progress, as it does every 2^20 spins when polling: a stopped or vanished
// peer ends a sleeping run within the same --timeout.
//
// Events are acknowledged in batches (ibv_ack_cq_events takes a lock), and
// all that are left when the wait ends: ibv_destroy_cq waits for them.
#include <infiniband/verbs.h>

#include <array>
#include <chrono>
#include <cstdint>

#include "system/watchdog.hpp"

namespace rdmabench::detail {

class CompletionWait {
 public:
  /// The longest sleep between two looks of the watchdog.
  static constexpr std::chrono::milliseconds kSlice{50};
  /// Events taken on one CQ before they are acknowledged.
  static constexpr unsigned kAckBatch = 128;

  /// Sleeps on `channel` (the Connection's, with -e); busy-polls when null.
  explicit CompletionWait(ibv_comp_channel* channel) : channel_(channel) {}
  ~CompletionWait();
  CompletionWait(const CompletionWait&) = delete;
  CompletionWait& operator=(const CompletionWait&) = delete;

  /// True when this wait sleeps (-e).
  bool sleeps() const { return channel_ != nullptr; }

  /// Call after a poll of `cq` (and of `also`, when the loop reaps two)
  /// found nothing; poll again after it returns. Busy polling: one spin for
  /// the watchdog, `progress` being any counter that grows. Events: arms
  /// what is not armed and returns, or sleeps until an event or a slice.
  /// The branch is taken only on an empty poll, beside the
  /// ibv_poll_cq call that preceded it.
  void idle(Watchdog& dog, std::uint64_t progress, ibv_cq* cq, ibv_cq* also = nullptr) {
    if (!channel_) {
      dog.idle(progress);
      return;
    }
    if (armed(cq, also)) sleep_slice();
    look(dog, progress);
  }

  /// idle() without the watchdog, for a loop whose peer is done and whose
  /// own deadline bounds what is left (the unreliable receiver's grace):
  /// busy polling returns at once.
  void rest(ibv_cq* cq) {
    if (channel_ && armed(cq, nullptr)) sleep_slice();
  }

 private:
  /// What this wait knows of one CQ on the channel (the connection's two).
  struct Tally {
    ibv_cq* cq = nullptr;
    bool armed = false;     ///< armed by us, and no event taken since
    unsigned unacked = 0;   ///< events taken and not yet acknowledged
  };

  /// Arms each of `cq` and `also` (when given) that is not armed; true when
  /// both were armed already, so that a poll since found them empty.
  bool armed(ibv_cq* cq, ibv_cq* also);
  /// Arms `cq` unless it is armed; true when it was armed already.
  bool arm(ibv_cq* cq);
  /// Sleeps until the channel has an event (and takes them all) or a slice ends.
  void sleep_slice();
  /// The watchdog's look, once per slice of waiting: events on the other
  /// CQ (the peer's messages in a -b run) could otherwise wake this loop
  /// for ever while its own completions never come.
  void look(Watchdog& dog, std::uint64_t progress);
  /// Takes every event waiting on the channel (it does not block).
  void take_events();
  Tally& tally(ibv_cq* cq);

  ibv_comp_channel* channel_;
  std::array<Tally, 2> tallies_{};
  std::chrono::steady_clock::time_point next_look_{};
};

}  // namespace rdmabench::detail
