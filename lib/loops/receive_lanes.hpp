#pragma once
// Which queue pair a receive completion belongs to, without a search: every
// receive carries its QP's index in Session::qps as its wr_id (post_receives
// sets it, and each repost copies the completion's), and the loops keep
// their lanes in that same order.
#include <infiniband/verbs.h>

#include <cstddef>
#include <string>

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

}  // namespace rdmabench::detail
