// Heartbeats: a side that hears nothing for its timeout marks the peer
// silent; a peer that keeps beating is never silent; receivers skip beats.
#include "catch2_compat.hpp"

#include <chrono>
#include <thread>

#include "control/heartbeat.hpp"
#include "rdmabench/control/control_channel.hpp"

using namespace std::chrono_literals;
using rdmabench::detail::Heartbeats;

TEST_CASE("heartbeat: a peer that says nothing goes silent after the timeout", "[heartbeat]") {
  auto [a, b] = rdmabench::make_control_pair();
  Heartbeats beats(a, 200ms);
  CHECK_FALSE(a.peer_went_silent());
  std::this_thread::sleep_for(600ms);
  CHECK(a.peer_went_silent());
}

TEST_CASE("heartbeat: two beating peers never go silent, and receivers skip the beats",
          "[heartbeat]") {
  auto [a, b] = rdmabench::make_control_pair();
  {
    Heartbeats beats_a(a, 200ms);
    Heartbeats beats_b(b, 200ms);
    std::this_thread::sleep_for(700ms);
    CHECK_FALSE(a.peer_went_silent());
    CHECK_FALSE(b.peer_went_silent());
  }
  a.send(rdmabench::wire::Barrier{7});
  CHECK(std::get<rdmabench::wire::Barrier>(b.receive(1s)).sequence == 7);
  CHECK_FALSE(b.peer_has_spoken());
}

TEST_CASE("heartbeat: the passive half of a barrier waits while the peer beats, not longer",
          "[heartbeat]") {
  auto [a, b] = rdmabench::make_control_pair();
  {
    Heartbeats beats(b, 200ms);
    std::thread late([&] {
      std::this_thread::sleep_for(700ms);  // longer than the silence allowed
      b.send(rdmabench::wire::Barrier{3});
    });
    CHECK_NOTHROW(a.answer_barrier(3, 200ms));
    late.join();
  }
  CHECK_THROWS_WITH(a.answer_barrier(4, 200ms), Catch::Contains("went silent: no word from it for 200 ms"));
}
