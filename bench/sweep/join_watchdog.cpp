#include "sweep/join_watchdog.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "sweep/sweep_options.hpp"

namespace rdmabench::sweep_cli {

JoinWatchdog::JoinWatchdog(double seconds, std::function<void()> expired)
    : thread_([this, seconds, expired = std::move(expired)] {
        std::unique_lock guard(lock_);
        if (!joined_.wait_for(guard, std::chrono::duration<double>(seconds),
                              [this] { return disarmed_; }))
          expired();
      }) {}

JoinWatchdog::~JoinWatchdog() {
  disarm();
  thread_.join();
}

void JoinWatchdog::disarm() {
  {
    const std::lock_guard guard(lock_);
    disarmed_ = true;
  }
  joined_.notify_all();
}

double join_limit_seconds(int argc, char** argv) {
  SweepOptions options;
  try {
    options = parse_sweep_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception&) {
    // The ranks report the usage error once they have joined.
  }
  return options.timeout_s + 30.0;
}

}  // namespace rdmabench::sweep_cli
