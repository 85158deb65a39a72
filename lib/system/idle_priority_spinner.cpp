#include "system/idle_priority_spinner.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <future>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

IdlePrioritySpinner::IdlePrioritySpinner() {
  std::promise<int> lowered;
  auto result = lowered.get_future();
  thread_ = std::thread([this, &lowered] {
    const sched_param lowest{};
    const int rc = ::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &lowest);
    lowered.set_value(rc);
    if (rc != 0) return;  // never spin at normal priority: it would delay the responder
    // No PAUSE in this loop: it would be polite to an SMT sibling, but under
    // emulation (QEMU's TCG leaves its CPU loop on every PAUSE) and under
    // hypervisors with pause-loop exiting it hands the virtual CPU back to
    // the host, the idleness this thread exists to prevent (measured in
    // docs/methodology.md#passive-wait).
    while (!stop_.load(std::memory_order_relaxed)) {
    }
  });
  if (const int rc = result.get(); rc != 0) {
    thread_.join();
    throw Error(
        fmt::format("the passive server could not lower its spinning thread to SCHED_IDLE: {}",
                    std::strerror(rc)),
        "run with --passive-wait sleep");
  }
}

IdlePrioritySpinner::~IdlePrioritySpinner() {
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
}

}  // namespace rdmabench::detail
