#include "control/notice_limiter.hpp"

#include <fmt/format.h>

namespace rdmabench::detail {

NoticeLimiter::NoticeLimiter(Notice out, std::size_t burst, Clock::duration window)
    : out_(std::move(out)), burst_(burst), window_(window) {}

NoticeLimiter::~NoticeLimiter() {
  try {
    flush();
  } catch (...) {
    // A notice that cannot be written is not worth ending the process for.
  }
}

void NoticeLimiter::say(const std::string& text, Clock::time_point now) {
  if (!started_ || now - window_start_ >= window_) {
    flush();
    started_ = true;
    window_start_ = now;
    shown_ = 0;
  }
  if (shown_ < burst_) {
    ++shown_;
    if (out_) out_(text);
  } else {
    ++held_;
  }
}

void NoticeLimiter::flush() {
  if (!held_ || !out_) return;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(window_).count();
  out_(fmt::format("{} more client{} turned away and not shown (at most {} such lines per {} s)", held_,
                   held_ == 1 ? "" : "s", burst_, seconds));
  held_ = 0;
}

}  // namespace rdmabench::detail
