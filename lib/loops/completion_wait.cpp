// Sleeping on the completion channel (-e): see completion_wait.hpp.
#include "loops/completion_wait.hpp"

#include <fmt/format.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

CompletionWait::~CompletionWait() {
  for (const Tally& t : tallies_)
    if (t.unacked) ibv_ack_cq_events(t.cq, t.unacked);
}

CompletionWait::Tally& CompletionWait::tally(ibv_cq* cq) {
  for (Tally& t : tallies_) {
    if (t.cq == cq) return t;
    if (!t.cq) {
      t.cq = cq;
      return t;
    }
  }
  // The channel serves the connection's two CQs and no other.
  throw Error("internal: a completion event for a third completion queue on the channel");
}

bool CompletionWait::arm(ibv_cq* cq) {
  Tally& t = tally(cq);
  if (t.armed) return true;
  // ibv_req_notify_cq returns its error rather than setting errno.
  if (const int rc = ibv_req_notify_cq(cq, 0); rc != 0)
    throw_system_error("ibv_req_notify_cq (-e/--use-event)", rc);
  t.armed = true;
  return false;
}

void CompletionWait::take_events() {
  for (;;) {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(channel_, &cq, &context) != 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      throw_system_error("ibv_get_cq_event (-e/--use-event)", errno);
    }
    Tally& t = tally(cq);
    t.armed = false;  // the event spent the arming: the next empty poll arms again
    if (++t.unacked >= kAckBatch) {
      ibv_ack_cq_events(cq, t.unacked);
      t.unacked = 0;
    }
  }
}

bool CompletionWait::armed(ibv_cq* cq, ibv_cq* also) {
  // Both armed before either is slept on: a CQ armed just now may already
  // hold a completion, which only the caller's next poll finds.
  bool before = arm(cq);
  if (also && !arm(also)) before = false;
  return before;
}

void CompletionWait::sleep_slice() {
  pollfd p{channel_->fd, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(kSlice.count()));
  if (ready < 0 && errno != EINTR) throw_system_error("poll on the completion channel", errno);
  if (ready > 0) take_events();
}

void CompletionWait::look(Watchdog& dog, std::uint64_t progress) {
  const auto now = std::chrono::steady_clock::now();
  if (now < next_look_) return;
  dog.look(progress);
  next_look_ = now + kSlice;
}

}  // namespace rdmabench::detail
