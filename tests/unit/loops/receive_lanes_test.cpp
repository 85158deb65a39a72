// A receive completion finds its lane: by wr_id when each QP has its own
// receive queue, by the completion's qp_num when they share one (--use-srq),
// and a consumed receive goes back to its QP's queue or to the shared one.
// A fake context's post_recv and post_srq_recv (the calls ibv_post_recv and
// ibv_post_srq_recv make) record where each receive went.

#include "catch2_compat.hpp"

#include <infiniband/verbs.h>

#include <vector>

#include "loops/receive_lanes.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

namespace {

/// What the fake provider saw: the QP number of each post_recv (0 for the SRQ).
std::vector<std::uint32_t> lanes_posted_on;

int fake_post_recv(ibv_qp* qp, ibv_recv_wr*, ibv_recv_wr**) {
  lanes_posted_on.push_back(qp->qp_num);
  return 0;
}
int fake_post_srq_recv(ibv_srq*, ibv_recv_wr*, ibv_recv_wr**) {
  lanes_posted_on.push_back(0);
  return 0;
}

/// Four QPs numbered out of order, as a device may hand them out, on a
/// context whose receive posts go to the fakes above.
struct FakeReceiveQueues {
  ibv_context context{};
  ibv_qp qps[4]{};
  ibv_srq srq{};
  FakeReceiveQueues() {
    context.ops.post_recv = fake_post_recv;
    context.ops.post_srq_recv = fake_post_srq_recv;
    const std::uint32_t numbers[4] = {0x51, 0x17, 0x2a0, 0x18};
    for (int i = 0; i < 4; ++i) {
      qps[i].context = &context;
      qps[i].qp_num = numbers[i];
    }
    srq.context = &context;
  }
  std::vector<ibv_qp*> all() { return {&qps[0], &qps[1], &qps[2], &qps[3]}; }
};

ibv_wc receive_completion(std::uint64_t wr_id, std::uint32_t qp_num) {
  ibv_wc wc{};
  wc.wr_id = wr_id;
  wc.qp_num = qp_num;
  return wc;
}

}  // namespace

TEST_CASE("a receive completion names its lane by wr_id", "[verbs]") {
  ibv_recv_wr wr{};
  detail::tag_receive(wr, 3);
  ibv_wc wc{};
  wc.wr_id = wr.wr_id;
  CHECK(detail::receive_lane(wc, 4) == 3);
  wc.wr_id = 4;
  REQUIRE_THROWS_MATCHES(detail::receive_lane(wc, 4), Error,
                         MessageContains("a receive completion carries wr_id 4, but the run has 4 queue pairs"));
}

TEST_CASE("receive queues of their own: the wr_id names the lane, the receive goes back to its QP",
          "[verbs][srq]") {
  FakeReceiveQueues fake;
  const detail::ReceiveQueues queues(fake.all(), nullptr);
  CHECK_FALSE(queues.shared());
  CHECK(queues.lane_of(receive_completion(2, 0x51)) == 2);  // the wr_id decides, not the qp_num
  lanes_posted_on.clear();
  ibv_recv_wr wr{};
  ibv_recv_wr* bad = nullptr;
  CHECK(queues.post(2, wr, bad) == 0);
  CHECK(wr.wr_id == 2);
  CHECK(lanes_posted_on == std::vector<std::uint32_t>{0x2a0});
}

TEST_CASE("a shared receive queue: the qp_num names the lane, every receive goes back to the SRQ",
          "[verbs][srq]") {
  FakeReceiveQueues fake;
  const detail::ReceiveQueues queues(fake.all(), &fake.srq);
  CHECK(queues.shared());
  // A receive posted for lane 0 may be consumed by any QP: the wr_id says nothing.
  CHECK(queues.lane_of(receive_completion(0, 0x51)) == 0);
  CHECK(queues.lane_of(receive_completion(0, 0x17)) == 1);
  CHECK(queues.lane_of(receive_completion(0, 0x2a0)) == 2);
  CHECK(queues.lane_of(receive_completion(0, 0x18)) == 3);
  REQUIRE_THROWS_MATCHES(queues.lane_of(receive_completion(0, 0x19)), Error,
                         MessageContains("a shared receive completed on QP number 25, which is none of the "
                                         "run's 4 queue pairs"));
  lanes_posted_on.clear();
  ibv_recv_wr wr{};
  ibv_recv_wr* bad = nullptr;
  CHECK(queues.post(3, wr, bad) == 0);
  CHECK(queues.post(1, wr, bad) == 0);
  CHECK(lanes_posted_on == std::vector<std::uint32_t>{0, 0});
  // One QP alone (send_lat) posts there too.
  lanes_posted_on.clear();
  ibv_recv_wr one{};
  CHECK(detail::post_receive(&fake.qps[0], &fake.srq, &one, &bad) == 0);
  CHECK(detail::post_receive(&fake.qps[0], nullptr, &one, &bad) == 0);
  CHECK(lanes_posted_on == std::vector<std::uint32_t>{0, 0x51});
}
