// The watchdog inside the spinning loops: it looks at the peer only when the
// loop's progress counter has stood still since its last look, so a healthy
// run pays no system call for it, and a stalled one still learns of a peer
// that left, or gives up after its timeout.

#include "system/watchdog.hpp"

#include <thread>

#include "catch2_compat.hpp"
#include <cstdint>
#include <optional>

#include "control/heartbeat.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using rdmabench::ControlChannel;
using rdmabench::Milliseconds;
using rdmabench::detail::Watchdog;
using rdmabench::test::MessageContains;

namespace {

/// More idle spins than several looks take (a look comes every 2^20 spins).
constexpr std::uint64_t kSpinsForLooks = std::uint64_t{1} << 23;

/// Spins with a counter that moves on every spin, as a healthy run's does.
void spin_with_progress(Watchdog& dog) {
  for (std::uint64_t i = 0; i < kSpinsForLooks; ++i) dog.idle(i);
}

/// Spins with a counter that stands still, as a stuck run's does.
void spin_stalled(Watchdog& dog, std::uint64_t spins = kSpinsForLooks) {
  for (std::uint64_t i = 0; i < spins; ++i) dog.idle(7);
}

}  // namespace

TEST_CASE("watchdog: a run that makes progress is not checked on", "[watchdog]") {
  auto pair = std::make_optional(rdmabench::make_control_pair());
  ControlChannel mine = std::move(pair->first);
  pair.reset();  // the peer is gone, but a moving counter means no look is taken
  Watchdog dog(mine, Milliseconds(0), "the test's message");
  REQUIRE_NOTHROW(spin_with_progress(dog));
}

TEST_CASE("watchdog: a stalled run learns that the peer closed", "[watchdog]") {
  auto pair = std::make_optional(rdmabench::make_control_pair());
  ControlChannel mine = std::move(pair->first);
  pair.reset();
  Watchdog dog(mine, Milliseconds(60'000), "the test's message");
  REQUIRE_THROWS_MATCHES(spin_stalled(dog), rdmabench::Error,
                         MessageContains("closed the control connection mid-run while this side "
                                         "was waiting for the test's message (at message 7)"));
}

TEST_CASE("watchdog: a stalled run with a live peer ends at the timeout", "[watchdog]") {
  auto [mine, peer] = rdmabench::make_control_pair();
  Watchdog dog(mine, Milliseconds(1), "the test's message");
  SECTION("it spins on while progress moves") { REQUIRE_NOTHROW(spin_with_progress(dog)); }
  SECTION("and gives up once progress stands still past the timeout") {
    // The first stalled look starts the clock; a later one finds it run out.
    // Far more looks than 1 ms needs are allowed, so that only a watchdog
    // that never times out fails here.
    REQUIRE_THROWS_MATCHES(spin_stalled(dog, std::uint64_t{1} << 34), rdmabench::Error,
                           MessageContains("no progress for 1 ms waiting for the test's message"));
  }
}

namespace {

/// A completion as a cut link's survivor sees it once the far side gave up
/// and deregistered its memory.
ibv_wc remote_access_error() {
  ibv_wc wc{};
  wc.status = IBV_WC_REM_ACCESS_ERR;
  wc.wr_id = 3;
  return wc;
}

}  // namespace

TEST_CASE("watchdog: an RDMA error after the peer fell quiet is named as its silence", "[watchdog]") {
  auto [mine, peer] = rdmabench::make_control_pair();  // the peer never says a word
  SECTION("quiet for half the timeout: it waits for the heartbeat's verdict, and says the peer went silent") {
    const Milliseconds timeout(400);
    rdmabench::detail::Heartbeats beats(mine, timeout);
    Watchdog dog(mine, timeout, "the test's message");
    std::this_thread::sleep_for(timeout / 2 + Milliseconds(50));
    REQUIRE_THROWS_MATCHES(dog.completion_failed(remote_access_error()), rdmabench::Error,
                           MessageContains("went silent: no word from it for 400 ms, and then this side's RDMA "
                                           "failed (completion with error: remote access error"));
  }
  SECTION("quiet for less than half the timeout: the error is the fabric's, said at once") {
    const Milliseconds timeout(60'000);
    rdmabench::detail::Heartbeats beats(mine, timeout);
    Watchdog dog(mine, timeout, "the test's message");
    try {
      dog.completion_failed(remote_access_error());
      FAIL("completion_failed returned");
    } catch (const rdmabench::Error& e) {
      CHECK_THAT(std::string(e.what()), Catch::StartsWith("completion with error: remote access error"));
    }
  }
}
