#pragma once
// Which queue pair a receive completion belongs to, and where a consumed
// receive goes back. Each QP has a receive queue of its own: every receive
// carries its QP's index in Session::qps as its wr_id (fill_receives sets
// it, and each repost copies the completion's), and the loops keep their
// lanes in that same order. With --use-srq every QP takes its receives from
// one shared receive queue: a receive belongs to no QP until one consumes
// it, so only the completion's qp_num says which, and every repost goes to
// the shared queue.
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

/// The receive work request that posts for lane `index`.
inline void tag_receive(ibv_recv_wr& wr, std::size_t index) { wr.wr_id = index; }

/// The lane of `wc`, checked against `lanes` (a wr_id out of range means a
/// receive this run did not post: an internal error, never a result).
inline std::size_t receive_lane(const ibv_wc& wc, std::size_t lanes) {
  if (wc.wr_id >= lanes) [[unlikely]]
    throw Error("internal: a receive completion carries wr_id " + std::to_string(wc.wr_id) +
                ", but the run has " + std::to_string(lanes) + " queue pairs");
  return static_cast<std::size_t>(wc.wr_id);
}

/// Posts one receive where this run keeps them: on `qp`'s own receive
/// queue, or on `srq` when the run shares one (--use-srq). Returns the
/// verbs call's error, as ibv_post_recv does.
inline int post_receive(ibv_qp* qp, ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad) {
  return srq ? ibv_post_srq_recv(srq, wr, bad) : ibv_post_recv(qp, wr, bad);
}

/// A run's receive queues, as the loops that serve several QPs see them:
/// the lane of each completion and where its receive goes back. Built
/// once per size, outside the timed loop; with a shared queue, the QP
/// numbers are sorted once so that a completion finds its lane by halves
/// (ten steps for the most QPs a run may have).
class ReceiveQueues {
 public:
  /// `qps` in Session order; `srq` null when each QP has its own queue.
  ReceiveQueues(std::vector<ibv_qp*> qps, ibv_srq* srq) : qps_(std::move(qps)), srq_(srq) {
    if (!srq_) return;
    by_number_.reserve(qps_.size());
    for (std::size_t i = 0; i < qps_.size(); ++i) by_number_.emplace_back(qps_[i]->qp_num, i);
    std::sort(by_number_.begin(), by_number_.end());
  }

  /// The lane that consumed `wc`'s receive. A QP number that is not one of
  /// the run's is an internal error, never a result.
  std::size_t lane_of(const ibv_wc& wc) const {
    if (!srq_) return receive_lane(wc, qps_.size());
    const auto at = std::lower_bound(by_number_.begin(), by_number_.end(),
                                     std::pair<std::uint32_t, std::size_t>{wc.qp_num, 0});
    if (at == by_number_.end() || at->first != wc.qp_num) [[unlikely]]
      throw Error("internal: a shared receive completed on QP number " + std::to_string(wc.qp_num) +
                  ", which is none of the run's " + std::to_string(qps_.size()) + " queue pairs");
    return at->second;
  }

  /// Posts `wr` for lane `index`: on its QP, or on the shared queue.
  int post(std::size_t index, ibv_recv_wr& wr, ibv_recv_wr*& bad) const {
    tag_receive(wr, index);
    return post_receive(qps_[index], srq_, &wr, &bad);
  }

  bool shared() const { return srq_ != nullptr; }
  std::size_t size() const { return qps_.size(); }

 private:
  std::vector<ibv_qp*> qps_;
  ibv_srq* srq_;
  std::vector<std::pair<std::uint32_t, std::size_t>> by_number_;  ///< (qp_num, lane), sorted
};

}  // namespace rdmabench::detail
