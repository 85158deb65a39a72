// Open-loop accounting on synthetic stamps: a stall of T at rate R leaves
// about T * R late messages whose response times fall from T to 0 while the
// service times stay those of the fabric (the coordinated-omission
// case), first on a hand-built schedule, then behind the pacer and a window.

#include "catch2_compat.hpp"

#include <cstdint>

#include "rdmabench/pacing/pacer.hpp"
#include "rdmabench/stats/open_loop.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"
#include "windowed_poster.hpp"

using rdmabench::OpenLoopRecorder;
using rdmabench::OpenLoopSummary;
using rdmabench::Pacer;
using rdmabench::test::MessageContains;
using rdmabench::test::WindowedPoster;

namespace {

// A nanosecond clock: 1000 ticks per microsecond.
constexpr double kTicksPerUs = 1000;
// 100k messages per second for 1 s: one every 10 us.
constexpr std::uint64_t kInterval = 10'000;
constexpr std::uint64_t kMessages = 100'000;
// The stall: 50 ms from 300 ms in, 5000 messages' worth (T * R).
constexpr std::uint64_t kStallFrom = 300'000'000;
constexpr std::uint64_t kStall = 50'000'000;
constexpr double kStallUs = 50'000;
constexpr double kStalledMessages = 5000;

// 2.0 to 2.6 us, varying so that the histograms see more than one value.
std::uint64_t service_ticks(std::uint64_t i) { return 2000 + (i % 7) * 100; }

// Message i of the schedule, posted on time except that nothing leaves
// during the stall: all it held up leave together when it ends.
OpenLoopSummary stalled_schedule(std::uint64_t late_threshold) {
  OpenLoopRecorder recorder(late_threshold);
  for (std::uint64_t i = 0; i < kMessages; ++i) {
    const std::uint64_t intended = i * kInterval;
    const bool held = intended >= kStallFrom && intended < kStallFrom + kStall;
    const std::uint64_t posted = held ? kStallFrom + kStall : intended;
    recorder.record(intended, posted, posted + service_ticks(i));
  }
  return recorder.summarize(kTicksPerUs);
}

}  // namespace

TEST_CASE("Open loop: a stall of T at rate R leaves about T*R late samples", "[open-loop]") {
  const OpenLoopSummary s = stalled_schedule(kInterval);
  CHECK(s.messages == kMessages);
  // Late means more than one interval late: all but the last one the stall held.
  CHECK(static_cast<double>(s.late) == Approx(kStalledMessages).margin(2));
  CHECK(s.late_threshold_us == 10);
  REQUIRE(s.lateness.has_value());
  CHECK(s.lateness->max == kStallUs);
  CHECK(s.lateness->min > 10);
  CHECK(s.lateness->mean == Approx(kStallUs / 2).epsilon(0.01));
  CHECK(s.reversed_stamps == 0);
}

TEST_CASE("Open loop: the stall's response times run from T down to 0", "[open-loop]") {
  const OpenLoopSummary s = stalled_schedule(kInterval);
  // The first message held waited the whole stall, then its service.
  CHECK(s.response.max == Approx(kStallUs + 2.0).margin(0.6));
  CHECK(s.response.max >= kStallUs);
  // 5% of the messages were held, their waits spread evenly over [0, T]:
  // the top 1% waited at least 0.8 T, the top 0.1% 0.98 T; the median none.
  CHECK(s.response.p99 == Approx(0.8 * kStallUs).epsilon(0.01));
  CHECK(s.response.p99_9 == Approx(0.98 * kStallUs).epsilon(0.01));
  CHECK(s.response.median < 3);
  CHECK(s.response.mean == Approx(0.05 * kStallUs / 2).epsilon(0.02));
}

TEST_CASE("Open loop: service times stay the fabric's through the stall", "[open-loop]") {
  const OpenLoopSummary s = stalled_schedule(kInterval);
  CHECK(s.service.min == 2.0);
  CHECK(s.service.max == 2.6);
  CHECK(s.service.p99_99 <= 2.6);
  // The closed-loop view would show none of the stall.
  CHECK(s.response.p99 > 100 * s.service.p99);
}

TEST_CASE("Open loop: on schedule, nothing is late and response equals service", "[open-loop]") {
  OpenLoopRecorder recorder(1000);
  for (std::uint64_t i = 0; i < 10'000; ++i) {
    // Posted up to the threshold late: on time by the rule.
    const std::uint64_t posted = i * kInterval + (i % 2) * 1000;
    recorder.record(i * kInterval, posted, posted + service_ticks(i));
  }
  const OpenLoopSummary s = recorder.summarize(kTicksPerUs);
  CHECK(s.late == 0);
  CHECK_FALSE(s.lateness.has_value());
  CHECK(s.service.max == 2.6);
  CHECK(s.response.max == 3.6);
  CHECK(s.response.min == 2.0);
}

TEST_CASE("Open loop: reversed stamps count 0 and are reported, never wrap", "[open-loop]") {
  OpenLoopRecorder recorder(1000);
  recorder.record(5000, 4990, 7000);  // posted 10 ticks before due
  recorder.record(5000, 6000, 5990);  // completed before posted
  CHECK(recorder.reversed_stamps() == 2);
  const OpenLoopSummary s = recorder.summarize(kTicksPerUs);
  CHECK(s.reversed_stamps == 2);
  CHECK(s.response.max == 2.01);  // 7000 - 4990: from the post, as the service
  CHECK(s.service.min == 0);
  CHECK(s.late == 0);
}

TEST_CASE("Open loop: summarising nothing, or on a bad clock, is refused", "[open-loop]") {
  OpenLoopRecorder recorder(1000);
  REQUIRE_THROWS_MATCHES(recorder.summarize(kTicksPerUs), rdmabench::Error,
                         MessageContains("no open-loop samples"));
  recorder.record(0, 0, 1000);
  REQUIRE_THROWS_MATCHES(recorder.summarize(0), rdmabench::Error, MessageContains("ticks per microsecond"));
}

TEST_CASE("Open loop: behind the pacer and a window, the stall shows the same way", "[open-loop]") {
  // 64 in flight at 2 us each drain the 5000 held messages in about 160 us,
  // during which a further 16 fall due and leave a little late.
  WindowedPoster poster{Pacer(0, kInterval, 16), 64, 2000, {}, {}, 0, 0};
  poster.run(kMessages * kInterval, kStallFrom, kStallFrom + kStall);
  REQUIRE(poster.posted_at.size() == kMessages);
  OpenLoopRecorder recorder(kInterval);
  for (std::uint64_t i = 0; i < kMessages; ++i)
    recorder.record(poster.pacer.intended(i), poster.posted_at[i], poster.posted_at[i] + poster.service);
  const OpenLoopSummary s = recorder.summarize(kTicksPerUs);
  CHECK(static_cast<double>(s.late) == Approx(kStalledMessages).epsilon(0.01));
  CHECK(s.response.max == Approx(kStallUs + 2).margin(0.01));
  CHECK(s.response.p99 == Approx(0.8 * kStallUs).epsilon(0.01));
  CHECK(s.service.max == 2);
  CHECK(s.reversed_stamps == 0);
}
