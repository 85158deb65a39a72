#pragma once
// Bounds a blocking system call that has no timeout of its own: while an
// InterruptTimer lives, a signal (with a handler that does nothing, and
// without SA_RESTART) is sent to the calling thread once `after` has passed,
// so that an interruptible wait in the kernel returns EINTR. rdma_connect on
// iWARP is such a call: the provider makes its TCP connection inside it, and
// a cut link holds it for the kernel's SYN retries (over two minutes).

#include <ctime>

#include "rdmabench/control/bootstrap.hpp"

namespace rdmabench::detail {

class InterruptTimer {
 public:
  explicit InterruptTimer(Milliseconds after);
  ~InterruptTimer();
  InterruptTimer(const InterruptTimer&) = delete;
  InterruptTimer& operator=(const InterruptTimer&) = delete;

  /// True once the signal was sent (an EINTR seen after that is ours).
  bool fired() const;

 private:
  timer_t timer_{};
  bool created_ = false;
};

}  // namespace rdmabench::detail
