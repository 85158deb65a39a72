#pragma once
// The pieces of one latency-loop iteration, each callable as piece(i) for
// message i, built from the library's own code: the clocks of clock.hpp, the
// recorders of latency_recorders.hpp, the reaping of completions.cpp and the
// Watchdog. The whole-sample pieces are send_latency.cpp's and
// round_trip_latency.cpp's loop bodies without the posts and the wire; they
// mirror those bodies line for line, so a change there belongs here too.

#include <cstdint>

#include "loops/latency_recorders.hpp"
#include "loops/loop_kit.hpp"
#include "microbench/piece_timing.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "system/watchdog.hpp"

namespace rdmabench::microbench {

using detail::CompletionWait;
using detail::Watchdog;

/// The floor under every other row: the counter, the compare, the branch.
struct EmptyIteration {
  void operator()(std::uint64_t i) const { keep(i); }
};

/// The stamp every message takes.
template <typename Clock>
struct ClockRead {
  void operator()(std::uint64_t) const { keep(Clock::now()); }
};

/// What a recorder does with a stamp (last, then record), fed made-up stamps
/// `step` ticks apart so that no clock read is counted in.
template <typename Recorder>
struct Recording {
  Recorder& recorder;
  std::uint64_t step;
  void operator()(std::uint64_t i) {
    const std::uint64_t now = i * step;
    keep(recorder.last(i, now));
    recorder.record(i, now);
  }
};

/// One look at a queue, as the loops take right after a signaled post.
struct TryReap {
  ibv_cq* cq;
  Watchdog& dog;
  void operator()(std::uint64_t) { keep(detail::try_reap_one(cq, dog)); }
};

/// A send's completion, waited for (here always there at the first poll).
struct Reap {
  ibv_cq* cq;
  CompletionWait& wait;
  Watchdog& dog;
  void operator()(std::uint64_t) { detail::reap_one(cq, wait, dog); }
};

/// A receive's completion, waited for, its length checked.
struct ReapReceive {
  ibv_cq* cq;
  std::uint64_t bytes;
  CompletionWait& wait;
  Watchdog& dog;
  void operator()(std::uint64_t i) { detail::reap_receive(cq, bytes, 0, wait, dog, i); }
};

/// The watchdog's share of one idle spin: a count, a mask, once in 2^20 a check.
struct WatchdogIdle {
  Watchdog& dog;
  void operator()(std::uint64_t) { dog.idle(0); }
};

/// The one-sided loops' per-poll look at the heartbeat thread's flag.
struct WatchdogWatch {
  Watchdog& dog;
  void operator()(std::uint64_t i) { dog.watch(i); }
};

/// One turn of a wait on an empty queue (reap_one's, reap_receive's): how
/// late, at worst, a completion that just landed is noticed. Busy polling:
/// the completion wait's branch, then the watchdog's spin.
struct SpinTurn {
  ibv_cq* empty_cq;
  CompletionWait& wait;
  Watchdog& dog;
  void operator()(std::uint64_t) {
    ibv_wc wc;
    if (ibv_poll_cq(empty_cq, 1, &wc) == 0) wait.idle(dog, 0, empty_cq);
  }
};

/// send_latency_loop's bookkeeping for one message, as the initiator runs
/// it: stamp, record, look for the signaled send's completion (one in
/// kLatencySignalEvery), reap the answer's receive. Left out: the post of
/// the send and of the receive, and the wire.
template <typename Clock, typename Recorder>
struct SendLatencySample {
  Recorder& recorder;
  ibv_cq* send_cq;
  ibv_cq* recv_cq;
  std::uint64_t bytes;
  CompletionWait& wait;
  Watchdog& dog;
  void operator()(std::uint64_t i) {
    const std::uint64_t now = Clock::now();
    const bool final = recorder.last(i, now);
    recorder.record(i, now);
    const bool signaled = i % kLatencySignalEvery == kLatencySignalEvery - 1 || final;
    if (signaled) keep(detail::try_reap_one(send_cq, dog));
    detail::reap_receive(recv_cq, bytes, 0, wait, dog, i);
  }
};

/// round_trip_loop's (read and atomic latency) bookkeeping for one message:
/// stamp, record, poll until the completion is there, check it, watch the
/// peer. Left out: the post, and the wire.
template <typename Clock, typename Recorder>
struct RoundTripSample {
  Recorder& recorder;
  ibv_cq* cq;
  CompletionWait& wait;
  Watchdog& dog;
  void operator()(std::uint64_t i) {
    const std::uint64_t now = Clock::now();
    keep(recorder.last(i, now));
    recorder.record(i, now);
    ibv_wc wc;
    int n;
    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) wait.idle(dog, i, cq);
    if (n < 0 || wc.status != IBV_WC_SUCCESS) [[unlikely]]
      dog.completion_failed(wc, n);
    dog.watch(i);
  }
};

}  // namespace rdmabench::microbench
