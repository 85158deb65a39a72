#pragma once
// Shared by the pacer and open-loop tests: a simulated poster on synthetic
// clock ticks, so that schedules, stalls and catching up are checked
// without reading a real clock.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "rdmabench/pacing/pacer.hpp"

namespace rdmabench::test {

/// A poster with an in-flight window: each message completes `service`
/// ticks after its post, and at most `window` are outstanding. Posting takes
/// no time, so every message leaves at the first instant both the pacer and
/// the window allow.
struct WindowedPoster {
  Pacer pacer;
  std::uint64_t window;
  std::uint64_t service;
  std::deque<std::uint64_t> completions;  // ascending
  std::vector<std::uint64_t> posted_at;   // by message index
  std::uint64_t largest_release = 0;
  std::uint64_t early = 0;

  /// Runs until `end`, posting nothing in [stall_from, stall_to).
  void run(std::uint64_t end, std::uint64_t stall_from, std::uint64_t stall_to) {
    std::uint64_t now = 0;
    while (now < end) {
      if (now >= stall_from && now < stall_to) now = stall_to;
      while (!completions.empty() && completions.front() <= now) completions.pop_front();
      const std::uint64_t room = window - completions.size();
      const std::uint64_t k = std::min(pacer.due(now), room);
      largest_release = std::max(largest_release, pacer.due(now));
      for (std::uint64_t j = 0; j < k; ++j) {
        if (pacer.intended(pacer.posted() + j) > now) ++early;
        posted_at.push_back(now);
        completions.push_back(now + service);
      }
      pacer.mark_posted(k);
      if (k > 0) continue;  // more may be due at this same instant
      // Nothing to post now: wake when a slot frees, or at the next due time.
      now = completions.size() == window ? completions.front() : pacer.next_due_ticks();
    }
  }
};

}  // namespace rdmabench::test
