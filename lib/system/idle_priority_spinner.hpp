#pragma once
// Keeps one CPU out of idle without taking it from anyone: a thread that
// spins at SCHED_IDLE, the lowest scheduling class, so any other runnable
// thread preempts it at once.
//
// Why: the server of a read or atomic latency test has nothing to do, but on
// soft RDMA devices the responder is the server host's kernel (siw sends each
// read response from a per-CPU kernel thread). With the server asleep that
// CPU idles, and every response first waits for it to wake. Busy-polling at
// normal priority, as perftest's server does, would now and then delay the
// responder by a scheduler tick; at idle priority it never waits. On a
// hardware device the responder is the NIC and this changes nothing but the
// server's CPU figures, which show the core. It keeps one CPU awake: on a
// machine with more CPUs than busy threads the responder may still land on
// an idle one. Measurements: docs/methodology.md#passive-wait.
//
// By default (--passive-wait auto) only iWARP servers spin; see
// idle_server_spins_by_default() in rdmabench/transport.hpp.
#include <atomic>
#include <thread>

namespace rdmabench::detail {

class IdlePrioritySpinner {
 public:
  /// Starts spinning once the thread runs at SCHED_IDLE; throws Error,
  /// naming --passive-wait sleep, if the kernel refuses that class.
  IdlePrioritySpinner();
  ~IdlePrioritySpinner();
  IdlePrioritySpinner(const IdlePrioritySpinner&) = delete;
  IdlePrioritySpinner& operator=(const IdlePrioritySpinner&) = delete;

  /// The spinning thread, for tests that check its scheduling class.
  std::thread::native_handle_type native_handle() { return thread_.native_handle(); }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rdmabench::detail
