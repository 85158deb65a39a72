// A receive completion finds its queue pair by wr_id, without a search.

#include "catch2_compat.hpp"

#include <infiniband/verbs.h>

#include "loops/receive_lanes.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

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
