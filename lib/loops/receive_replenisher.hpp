#pragma once
// The receiving half of a bidirectional send run (-b): while this side's
// bandwidth loop sends, it also reaps the peer's messages and reposts each
// consumed receive on the QP it came from (or on the shared receive queue,
// --use-srq), so neither side stalls the other on receiver-not-ready
// retries. It measures nothing (each side reports what it sends); it only
// knows when the peer is done: after `expected` messages in a counted run,
// or after one zero-length end marker per QP in a -D run.
#include <fmt/format.h>
#include <infiniband/verbs.h>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "loops/bandwidth_window.hpp"
#include "loops/loop_kit.hpp"
#include "loops/receive_lanes.hpp"

namespace rdmabench::detail {

/// For one-way runs: nothing to receive.
struct NoReceives {
  void service(const std::vector<Lane>&, Watchdog&) {}
  bool done() const { return true; }
  std::uint64_t progress() const { return 0; }
};

class ReceiveReplenisher {
 public:
  ReceiveReplenisher(ibv_cq* cq, const PreparedReceive& receive, ReceiveQueues queues,
                     std::uint64_t bytes, std::uint64_t expected, bool until_markers)
      : cq_(cq), wr_(receive.wr), sges_(receive.sges), queues_(std::move(queues)), bytes_(bytes),
        expected_(expected), until_markers_(until_markers) {
    wr_.sg_list = sges_.data();
  }

  /// Reaps what has arrived (never more than the run expects) and reposts.
  /// The lanes are the sender's; the receive queues were given at construction.
  void service(const std::vector<Lane>&, Watchdog& dog) {
    ibv_wc wc[16];
    const int n = ibv_poll_cq(cq_, 16, wc);
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    ibv_recv_wr* bad = nullptr;
    for (int k = 0; k < n; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
        dog.completion_failed(wc[k]);
      if (until_markers_ && wc[k].byte_len == 0) ++markers_;
      else if (wc[k].byte_len == bytes_) ++received_;
      else [[unlikely]]
        throw Error(fmt::format("received a {}-byte message where {} bytes were expected",
                                wc[k].byte_len, bytes_));
      if (int rc = queues_.post(queues_.lane_of(wc[k]), wr_, bad); rc != 0) [[unlikely]]
        dog.post_failed(rc);
    }
  }

  bool done() const { return until_markers_ ? markers_ == markers_wanted_ : received_ >= expected_; }
  void expect_markers(std::size_t qps) { markers_wanted_ = qps; }
  /// Grows with every message or marker: the watchdog's measure of progress.
  std::uint64_t progress() const { return received_ + markers_; }

 private:
  ibv_cq* cq_;
  ibv_recv_wr wr_;
  std::array<ibv_sge, 2> sges_;  // -b runs on RC only: no GRH entry in use
  ReceiveQueues queues_;         // each QP's own, or the one shared by all (--use-srq)
  std::uint64_t bytes_;
  std::uint64_t expected_;
  bool until_markers_;
  std::size_t markers_wanted_ = 0;
  std::uint64_t received_ = 0;
  std::uint64_t markers_ = 0;
};

}  // namespace rdmabench::detail
