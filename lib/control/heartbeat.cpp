#include "control/heartbeat.hpp"

#include <algorithm>

namespace rdmabench::detail {

Heartbeats::Heartbeats(Bootstrap& peer, Milliseconds timeout)
    : peer_(peer),
      timeout_(timeout),
      interval_(std::clamp(timeout / 4, Milliseconds(50), Milliseconds(1000))),
      thread_([this] { run(); }) {}

Heartbeats::~Heartbeats() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_requested_.notify_one();
  thread_.join();
}

void Heartbeats::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (stop_requested_.wait_for(lock, interval_, [this] { return stop_; })) return;
    }
    try {
      peer_.send_heartbeat();
      peer_.listen_for_heartbeats(timeout_);
    } catch (...) {
      // The peer can no longer be reached (its end closed or reset). A loop
      // that reads only the silence flag (a UC or one-sided initiator never
      // waits long enough to look at the socket) must hear that too.
      peer_.listen_for_heartbeats(Milliseconds(0));
      return;
    }
  }
}

}  // namespace rdmabench::detail
