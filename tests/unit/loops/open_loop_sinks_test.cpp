// The open-loop loop's two sinks (lib/loops/open_loop_sinks.hpp) on
// synthetic stamps: which messages count, the response and service times,
// the late ones, the achieved rate, and the -D window.

#include "catch2_compat.hpp"

#include "loops/open_loop_sinks.hpp"

using namespace rdmabench;
using namespace rdmabench::detail;

namespace {

// One tick per usec; a message due every 1000 ticks (1000 msg/s).
constexpr double kSinkTicksPerUs = 1.0;
constexpr std::uint64_t kSinkInterval = 1000;

Pacing pacing_at(double per_second) { return Pacing{Rate{per_second, RateUnit::messages_per_second}, 1}; }

}  // namespace

TEST_CASE("counted sink: warm-up left out, response from due time, service from the post", "[open-loop]") {
  CountedOpenLoopSink sink(2, 4, 10);
  CHECK(sink.total() == 6);
  CHECK(sink.keep_posting(5, 0));
  CHECK_FALSE(sink.keep_posting(6, 0));
  // Messages 0-1 are warm-up; 2-5 timed. Message 4 leaves 500 ticks late.
  for (std::uint64_t i = 0; i < 6; ++i) {
    const std::uint64_t due = i * kSinkInterval;
    const std::uint64_t posted = due + (i == 4 ? 500 : 1);
    sink.record(i, due, posted, posted + 20);
  }
  const SizeResult r = sink.result(SizeResult{}, pacing_at(1000), 1000, kSinkTicksPerUs);
  REQUIRE(r.latency);
  CHECK(r.latency->count == 4);
  CHECK(r.latency->max == 520);  // 500 late + 20 of service
  CHECK(r.latency->min == 21);
  REQUIRE(r.open_loop);
  CHECK(r.open_loop->service.max == 20);
  CHECK(r.open_loop->service.min == 20);
  CHECK(r.open_loop->late == 1);
  REQUIRE(r.open_loop->lateness);
  CHECK(r.open_loop->lateness->max == 500);
  CHECK(r.open_loop->target == "1 kmsg/s");
  // Posts at 2001, 3001, 4500, 5001: three intervals over 3000 ticks.
  CHECK(r.open_loop->achieved_per_s == Approx(1000.0));
  REQUIRE(r.message_times.size() == 4);
  CHECK(r.message_times[0].intended_us == 0);
  CHECK(r.message_times[2].posted_us == 2500);
  CHECK(r.message_times[3].completed_us == 3021);
  CHECK(r.latency_samples_us == std::vector<double>{21, 21, 520, 21});
}

TEST_CASE("timed sink: only messages due inside the window count, and unsent ones are named", "[open-loop]") {
  // -D 1 at one tick per usec: 1e6 ticks; the window leaves out the first
  // and last 1e5, so messages 100..899 of a 1000-tick schedule count.
  TimedOpenLoopSink sink(1, kSinkInterval, 10, kSinkTicksPerUs, 0.1);
  sink.start(0);
  CHECK(sink.keep_posting(0, 999'999));
  CHECK_FALSE(sink.keep_posting(0, 1'000'000));
  for (std::uint64_t i = 0; i < 700; ++i) sink.record(i, i * kSinkInterval, i * kSinkInterval, i * kSinkInterval + 30);
  const SizeResult r = sink.result(SizeResult{}, pacing_at(1000), 1000, kSinkTicksPerUs);
  CHECK(r.iterations == 600);  // 100..699
  REQUIRE(r.open_loop);
  CHECK(r.open_loop->not_sent == 200);  // 700..899 were due in the window
  CHECK(r.open_loop->late == 0);
  CHECK_FALSE(r.open_loop->lateness);
  CHECK(r.histogram_relative_error);
  CHECK(r.latency->max == 30);
}

TEST_CASE("timed sink: a window with no message is an error that says what to change", "[open-loop]") {
  TimedOpenLoopSink sink(1, kSinkInterval, 10, kSinkTicksPerUs, 0.1);
  sink.start(0);
  sink.record(0, 0, 0, 5);  // warm-up only
  REQUIRE_THROWS_WITH(sink.result(SizeResult{}, pacing_at(1000), 1000, kSinkTicksPerUs),
                      Catch::Contains("lengthen -D"));
}
