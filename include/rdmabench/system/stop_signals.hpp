#pragma once
/// @file
/// How a soak run (--run-infinitely) ends: SIGINT or SIGTERM, caught while
/// a StopSignals lives, set a flag instead of ending the process, so that
/// the period under way is cut short, written and summed up, and both
/// sides exit 0. Outside a soak the signals keep their usual meaning.

#include <atomic>
#include <csignal>

namespace rdmabench {

class StopSignals {
 public:
  /// Catches SIGINT and SIGTERM from here on (the flag starts clear).
  StopSignals();
  /// Puts back what was there before.
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// Set once either signal has arrived; the loops read it at their checkpoints.
  static const std::atomic<bool>& flag() noexcept;
  /// "SIGINT", "SIGTERM", or empty before either.
  static const char* received() noexcept;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace rdmabench
