#pragma once
// While a run is under way each side tells the other it is alive, and
// listens for the same, from a thread of its own: a peer that is stopped,
// crashed or cut off goes silent, while a merely slow one keeps beating. The
// thread sleeps between beats and never touches the data path; the timed
// loops' watchdogs read its verdict with one relaxed load.

#include <condition_variable>
#include <mutex>
#include <thread>

#include "rdmabench/control/bootstrap.hpp"

namespace rdmabench::detail {

class Heartbeats {
 public:
  /// Beats four times per `timeout` (at most once a second, at least every
  /// 50 ms) and marks the peer silent after `timeout` without a word from
  /// it; stops when destroyed. A failed send ends the beats (the main thread
  /// learns of the broken connection on its own).
  Heartbeats(Bootstrap& peer, Milliseconds timeout);
  ~Heartbeats();
  Heartbeats(const Heartbeats&) = delete;
  Heartbeats& operator=(const Heartbeats&) = delete;

 private:
  void run();
  Bootstrap& peer_;
  Milliseconds timeout_;
  Milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rdmabench::detail
