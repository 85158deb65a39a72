#pragma once
// A server's notices about clients it turned away, at a bounded rate: a
// flood of connections (a port scanner, a client retrying in a loop, idle
// connections that never say hello) would otherwise bury the run's own
// output under one line each.

#include <chrono>
#include <cstddef>
#include <string>

#include "rdmabench/control/session.hpp"

namespace rdmabench::detail {

/// Passes the first `burst` notices of each `window` on to `out` and counts
/// the rest; the count is told (one line) when the next window opens with a
/// notice, and when the limiter ends.
class NoticeLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kBurst = 5;
  static constexpr std::chrono::seconds kWindow{60};

  explicit NoticeLimiter(Notice out, std::size_t burst = kBurst, Clock::duration window = kWindow);
  NoticeLimiter(const NoticeLimiter&) = delete;
  NoticeLimiter& operator=(const NoticeLimiter&) = delete;
  ~NoticeLimiter();

  void operator()(const std::string& text) { say(text, Clock::now()); }
  void say(const std::string& text, Clock::time_point now);
  /// Tells how many notices were held back since the last such line, if any.
  void flush();

 private:
  Notice out_;
  std::size_t burst_;
  Clock::duration window_;
  bool started_ = false;
  Clock::time_point window_start_{};
  std::size_t shown_ = 0;
  std::size_t held_ = 0;
};

}  // namespace rdmabench::detail
