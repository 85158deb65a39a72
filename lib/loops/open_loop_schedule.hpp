#pragma once
// What the two open-loop latency loops share: the schedule for a size, the
// ring of due and post times of the messages in flight, the poster that
// releases what the pacer has due, and the run around a loop (pacer, sink,
// result). The loops differ only in where a message's response comes from:
// its own completion (reads, atomics: open_loop_latency.cpp) or the peer's
// answer (sends, writes: open_loop_echo.cpp).
#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "loops/loop_kit.hpp"
#include "loops/open_loop_sinks.hpp"
#include "rdmabench/pacing/pacer.hpp"
#include "rdmabench/pacing/rate.hpp"

namespace rdmabench::detail {

/// When a message was due and when it was actually posted, kept in a ring
/// of -t slots (at most that many are in flight) until its response.
struct Posted {
  std::uint64_t intended = 0, posted = 0;
};

/// Posts what the schedule has due, at most `room` (the free slots of the
/// window) and `left` (what the run still posts); returns how many. Each
/// request carries its index as wr_id and, for the echo's writes, as its
/// immediate data (other opcodes ignore that field).
template <typename Clock>
std::uint64_t post_due(ibv_qp* qp, ibv_send_wr& wr, Pacer& pacer, std::vector<Posted>& ring, std::uint64_t room,
                       std::uint64_t left, Watchdog& dog) {
  room = std::min(room, left);
  if (room == 0) return 0;
  const std::uint64_t k = std::min(pacer.due(Clock::now()), room);
  ibv_send_wr* bad = nullptr;
  for (std::uint64_t j = 0; j < k; ++j) {
    const std::uint64_t i = pacer.posted();
    ring[i % ring.size()] = {pacer.intended(i), Clock::now()};
    wr.wr_id = i;
    wr.imm_data = htonl(static_cast<std::uint32_t>(i));
    if (int rc = ibv_post_send(qp, &wr, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    pacer.mark_posted(1);
  }
  return k;
}

/// The schedule's pace in clock ticks, and the late threshold: a message is
/// late when it left more than one interval after its time, or 10 usec if
/// that is shorter (at a slow rate one interval would excuse a long wait).
struct Schedule {
  double per_second;
  double ticks_per_message;
  std::uint64_t late_threshold_ticks;
};

inline Schedule schedule_for(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  const double per_s = messages_per_second(v.pacing->rate, bytes);
  const double interval = ticks_per_message(per_s, clock.ticks_per_us);
  const double cap = 10.0 * clock.ticks_per_us;
  return {per_s, interval, static_cast<std::uint64_t>(std::min(interval, cap))};
}

/// Runs one size of an open-loop client: picks the sink the spec calls for
/// (-n keeps every message, -D a histogram of its window), starts the pacer
/// and calls loop.template operator()<Clock>(pacer, ring, sink); returns
/// the sink's result.
template <typename Loop>
SizeResult run_open_loop(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock, Loop loop) {
  SizeResult r = result_header(v, bytes);
  const Schedule schedule = schedule_for(v, bytes, clock);
  std::vector<Posted> ring(std::max<std::uint32_t>(v.spec.tx_depth, 1));  // allocated before timing
  auto run = [&](auto& sink) {
    with_clock(clock, [&]<typename Clock>() {
      Pacer pacer(Clock::now(), schedule.ticks_per_message, v.pacing->burst);
      sink.start(pacer.intended(0));
      loop.template operator()<Clock>(pacer, ring, sink);
    });
  };
  if (v.spec.duration_s) {
    TimedOpenLoopSink sink(v.spec.duration_s, schedule.ticks_per_message, schedule.late_threshold_ticks,
                           clock.ticks_per_us, untimed_margin_share(v.spec));
    run(sink);
    return sink.result(std::move(r), *v.pacing, schedule.per_second, clock.ticks_per_us);
  }
  CountedOpenLoopSink sink(v.warmup(), v.spec.iterations, schedule.late_threshold_ticks);
  run(sink);
  return sink.result(std::move(r), *v.pacing, schedule.per_second, clock.ticks_per_us);
}

}  // namespace rdmabench::detail
