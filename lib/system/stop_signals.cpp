#include "rdmabench/system/stop_signals.hpp"

#include <signal.h>

namespace rdmabench {

namespace {

std::atomic<bool> stop_signal_seen{false};
std::atomic<int> stop_signal_number{0};

void note_stop_signal(int number) {
  // Only lock-free atomics here: this runs inside the signal handler.
  stop_signal_number.store(number, std::memory_order_relaxed);
  stop_signal_seen.store(true, std::memory_order_relaxed);
}

}  // namespace

StopSignals::StopSignals() {
  stop_signal_seen = false;
  stop_signal_number = 0;
  struct sigaction catching {};
  catching.sa_handler = note_stop_signal;
  sigemptyset(&catching.sa_mask);
  // SA_RESTART: a read interrupted by the signal goes on (the control
  // channel's polls already retry on EINTR); the loops notice the flag.
  catching.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &catching, &previous_int_);
  ::sigaction(SIGTERM, &catching, &previous_term_);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &previous_int_, nullptr);
  ::sigaction(SIGTERM, &previous_term_, nullptr);
}

const std::atomic<bool>& StopSignals::flag() noexcept { return stop_signal_seen; }

const char* StopSignals::received() noexcept {
  switch (stop_signal_number.load(std::memory_order_relaxed)) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "";
  }
}

}  // namespace rdmabench
