// The progress line on a terminal: sizes done of all, and while a -D size
// runs, how long it has run and has left, every tick (10 s), from a thread
// of its own off the CPU --cpu pinned the timed loop to.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <condition_variable>
#include <ctime>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "rdmabench/report/report.hpp"
#include "rdmabench/system/cpu_affinity.hpp"

namespace rdmabench {

namespace {

class ProgressReporter final : public Reporter {
 public:
  using Clock = std::function<std::time_t()>;
  ProgressReporter(std::ostream& out, std::size_t total, Clock clock,
                   std::chrono::milliseconds tick)
      : out_(out), total_(total), clock_(std::move(clock)), tick_(tick) {}
  ~ProgressReporter() override { stop_ticking(); }

  void begin(const RunContext& c) override { duration_s_ = c.duration_s; }
  void size_started(std::uint64_t bytes) override {
    if (!duration_s_) return;  // a counted size: only its end is known
    // A -D size is silent for its whole duration otherwise.
    const std::time_t started = clock_();
    const std::time_t until = started + static_cast<std::time_t>(duration_s_);
    show(fmt::format("[{}/{}] {} bytes: timing for {} s, until {:%H:%M:%S}", done_ + 1, total_,
                     bytes, duration_s_, fmt::localtime(until)));
    stop_ticking();
    ticker_ =
        std::thread([this, bytes, started, until] { tick_until_done(bytes, started, until); });
  }
  void size_done(const SizeResult& r) override {
    stop_ticking();
    show(fmt::format("[{}/{}] {} bytes done", ++done_, total_, r.bytes));
  }
  void end() override {
    stop_ticking();
    const std::lock_guard guard(print_);
    fmt::print(out_, "\r{:{}}\r", "", shown_);
    out_.flush();
  }

 private:
  void tick_until_done(std::uint64_t bytes, std::time_t started, std::time_t until) {
    leave_a_pinned_cpu();
    std::unique_lock guard(tick_lock_);
    while (!ticked_off_.wait_for(guard, tick_, [this] { return stop_; })) {
      const std::time_t now = clock_();
      show(fmt::format("[{}/{}] {} bytes: {} s of {} s, {} s left", done_ + 1, total_, bytes,
                       std::max<std::time_t>(now - started, 0), duration_s_,
                       std::max<std::time_t>(until - now, 0)));
    }
  }

  void stop_ticking() {
    if (!ticker_.joinable()) return;
    {
      const std::lock_guard guard(tick_lock_);
      stop_ = true;
    }
    ticked_off_.notify_all();
    ticker_.join();
    stop_ = false;
  }

  void show(const std::string& line) {
    const std::lock_guard guard(print_);
    // Blanks over the rest of a longer line shown before.
    fmt::print(out_, "\r{:{}}", line, std::max(shown_, line.size()));
    shown_ = line.size();
    out_.flush();
  }

  std::ostream& out_;
  std::size_t total_;
  Clock clock_;
  std::chrono::milliseconds tick_;
  std::size_t done_ = 0;
  std::size_t shown_ = 0;
  std::uint32_t duration_s_ = 0;
  std::mutex print_;  ///< the line, written by the run's thread and the ticker
  std::mutex tick_lock_;
  std::condition_variable ticked_off_;
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace

std::unique_ptr<Reporter> make_progress_reporter(std::ostream& out, std::size_t total_sizes,
                                                 std::function<std::time_t()> clock,
                                                 std::chrono::milliseconds tick) {
  if (!clock) clock = [] { return std::time(nullptr); };
  return std::make_unique<ProgressReporter>(out, total_sizes, std::move(clock), tick);
}

}  // namespace rdmabench
