// A paced bandwidth run's release shared among the -q queue pairs: in turn,
// one message at a time, past full queues, never beyond a queue's room.

#include "catch2_compat.hpp"

#include <cstdint>
#include <vector>

#include "loops/lane_spread.hpp"

using rdmabench::detail::spread_round_robin;
using Counts = std::vector<std::uint64_t>;

TEST_CASE("lane spread: one message a turn goes round every lane in order", "[pacing]") {
  const Counts room{5, 5, 5};
  Counts share(3);
  std::size_t next = 0;
  Counts posted(3, 0);
  for (int turn = 0; turn < 7; ++turn) {
    REQUIRE(spread_round_robin(1, room, share, next) == 1);
    for (std::size_t i = 0; i < 3; ++i) posted[i] += share[i];
  }
  CHECK(posted == Counts{3, 2, 2});
  CHECK(next == 1);  // the eighth message goes to lane 1
}

TEST_CASE("lane spread: a release shared evenly, starting where the last one stopped", "[pacing]") {
  const Counts room{10, 10, 10, 10};
  Counts share(4);
  std::size_t next = 2;
  CHECK(spread_round_robin(6, room, share, next) == 6);
  CHECK(share == Counts{1, 1, 2, 2});
  CHECK(next == 0);
}

TEST_CASE("lane spread: a full queue is passed over and its turn goes to the next", "[pacing]") {
  const Counts room{0, 3, 1};
  Counts share(3);
  std::size_t next = 0;
  CHECK(spread_round_robin(3, room, share, next) == 3);
  CHECK(share == Counts{0, 2, 1});
}

TEST_CASE("lane spread: more due than room gives what fits, never beyond a lane's room", "[pacing]") {
  const Counts room{2, 0, 1};
  Counts share{9, 9, 9};  // overwritten
  std::size_t next = 1;
  CHECK(spread_round_robin(100, room, share, next) == 3);
  CHECK(share == Counts{2, 0, 1});
  const Counts none{0, 0};
  Counts none_share(2);
  CHECK(spread_round_robin(5, none, none_share, next) == 0);
  CHECK(none_share == Counts{0, 0});
}

TEST_CASE("lane spread: nothing due gives nothing", "[pacing]") {
  const Counts room{4};
  Counts share(1);
  std::size_t next = 0;
  CHECK(spread_round_robin(0, room, share, next) == 0);
  CHECK(share == Counts{0});
}
