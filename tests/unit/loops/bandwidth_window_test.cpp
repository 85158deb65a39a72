// The bandwidth window: what part of a counted or -D run is timed, the
// per-QP shares, the peak, and the arithmetic of -b's two directions.

#include "catch2_compat.hpp"

#include <vector>

#include "loops/bandwidth_window.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/report/result.hpp"

using rdmabench::BandwidthFigures;
using rdmabench::detail::BandwidthWindow;
using rdmabench::detail::Lane;

namespace {

std::vector<Lane> lanes_at(std::initializer_list<std::uint64_t> completed) {
  std::vector<Lane> lanes;
  for (auto c : completed) lanes.push_back(Lane{nullptr, c, c, 0});
  return lanes;
}

}  // namespace

TEST_CASE("bandwidth window: a counted run times everything from its start", "[bandwidth]") {
  auto w = BandwidthWindow::counted(100, 2);
  CHECK_FALSE(w.timed());
  w.start(1000);
  // One tick per microsecond: 400 messages in the first 1000 us, then 600 in 1000 us.
  CHECK_FALSE(w.passed(2000, 400, lanes_at({200, 200})));
  CHECK_FALSE(w.passed(3000, 1000, lanes_at({500, 500})));
  w.finish(3000, 1000, lanes_at({500, 500}));
  const auto b = w.figures(1000, 1.0);
  CHECK(b.messages == 1000);
  CHECK(b.seconds == Approx(0.002));
  CHECK(b.average_mb_per_s == Approx(500.0));  // 10^6 bytes in 2000 us
  CHECK(b.message_rate_mpps == Approx(0.5));
  CHECK(b.peak_mb_per_s == Approx(600.0));  // the second span: 600 messages in 1000 us
  CHECK(b.per_qp_mb_per_s == std::vector<double>{250.0, 250.0});
}

TEST_CASE("bandwidth window: one QP reports no per-QP list", "[bandwidth]") {
  auto w = BandwidthWindow::counted(1, 1);
  w.start(0);
  w.finish(100, 10, lanes_at({10}));
  CHECK(w.figures(10, 1.0).per_qp_mb_per_s.empty());
}

TEST_CASE("bandwidth window: a -D run times its middle eight tenths and stops at the deadline",
          "[bandwidth]") {
  auto w = BandwidthWindow::timed(10, 1.0, 1, 2, 0.1);  // 10 s at one tick per us
  REQUIRE(w.timed());
  w.start(0);
  CHECK_FALSE(w.passed(500'000, 10, lanes_at({5, 5})));        // warm-up margin
  CHECK_FALSE(w.passed(1'000'000, 100, lanes_at({60, 40})));   // the window opens
  CHECK_FALSE(w.passed(5'000'000, 1000, lanes_at({520, 480})));
  CHECK_FALSE(w.passed(9'000'000, 2100, lanes_at({1060, 1040})));  // the window closes
  CHECK(w.passed(10'000'000, 2300, lanes_at({1150, 1150})));  // the deadline: stop posting
  CHECK_FALSE(w.passed(10'100'000, 2310, lanes_at({1155, 1155})));  // said once
  w.finish(10'200'000, 2320, lanes_at({1160, 1160}));
  const auto b = w.figures(1000, 1.0);
  CHECK(b.messages == 2000);            // 2100 - 100: the margins are left out
  CHECK(b.seconds == Approx(8.0));
  CHECK(b.average_mb_per_s == Approx(2000.0 * 1000 / 8e6));
  CHECK(b.per_qp_mb_per_s == std::vector<double>{1000.0 * 1000 / 8e6, 1000.0 * 1000 / 8e6});
}

TEST_CASE("bandwidth window: a -D run whose window never closed is an error, not a figure",
          "[bandwidth]") {
  auto w = BandwidthWindow::timed(10, 1.0, 1, 1, 0.1);
  w.start(0);
  CHECK_FALSE(w.passed(1'000'000, 100, lanes_at({100})));
  REQUIRE_THROWS_AS(w.figures(1000, 1.0), rdmabench::Error);
}

TEST_CASE("bandwidth: -b adds both directions", "[bandwidth]") {
  const BandwidthFigures a{2.0, 120.0, 100.0, 0.5, 1000, {}};
  const BandwidthFigures b{2.5, 90.0, 80.0, 0.4, 800, {}};
  const auto sum = rdmabench::add_directions(a, b);
  CHECK(sum.seconds == 2.5);
  CHECK(sum.average_mb_per_s == 180.0);
  CHECK(sum.peak_mb_per_s == 210.0);
  CHECK(sum.message_rate_mpps == Approx(0.9));
  CHECK(sum.messages == 1800);
}

TEST_CASE("bandwidth window: a counted run keeps its intervals, a stall lengthens one", "[bandwidth]") {
  auto w = BandwidthWindow::counted(1, 1);
  w.keep_intervals(std::chrono::milliseconds(100), 0, 1.0);  // 100'000 ticks at one per us
  w.start(0);
  CHECK_FALSE(w.passed(50'000, 50, lanes_at({50})));
  CHECK_FALSE(w.passed(100'000, 100, lanes_at({100})));  // the first interval ends
  CHECK_FALSE(w.passed(150'000, 150, lanes_at({150})));
  CHECK_FALSE(w.passed(200'000, 200, lanes_at({200})));  // the second
  // Nothing reaped for 250 ms: the next poll ends a 350 ms interval.
  CHECK_FALSE(w.passed(550'000, 250, lanes_at({250})));
  w.finish(570'000, 260, lanes_at({260}));
  const auto t = w.over_time(1'000'000, 1.0);  // 1 MB messages
  REQUIRE(t);
  REQUIRE(t->mb_per_s.size() == 3);
  CHECK(t->mb_per_s[0] == Approx(1000.0));
  CHECK(t->mb_per_s[2] == Approx(50.0 / 0.35));
  CHECK(t->lengths_ms[2] == Approx(350.0));
  CHECK(t->tail_ms == Approx(20.0));
  CHECK(t->interval_ms == Approx(100.0));
  CHECK(t->min_mb_per_s == Approx(50.0 / 0.35));
}

TEST_CASE("bandwidth window: a -D run's intervals lie inside its window", "[bandwidth]") {
  auto w = BandwidthWindow::timed(10, 1.0, 1, 1, 0.1);
  w.keep_intervals(std::chrono::milliseconds(1000), 10, 1.0);
  w.start(0);
  CHECK_FALSE(w.passed(999'999, 99, lanes_at({99})));  // warm-up margin: no interval
  CHECK_FALSE(w.passed(1'000'000, 100, lanes_at({100})));  // the window opens
  std::uint64_t done = 100;
  for (std::uint64_t t = 2'000'000; t <= 9'000'000; t += 1'000'000)
    CHECK_FALSE(w.passed(t, done += 100, lanes_at({done})));  // the last closes the window
  CHECK(w.passed(10'000'000, 1000, lanes_at({1000})));
  w.finish(10'000'000, 1000, lanes_at({1000}));
  const auto t = w.over_time(1000, 1.0);
  REQUIRE(t);
  CHECK(t->mb_per_s.size() == 8);  // 1 s to 9 s
  CHECK(t->min_mb_per_s == Approx(0.1));  // 100 messages of 1000 B a second
  CHECK(t->tail_ms == 0);           // the window closed on an interval's end
}

TEST_CASE("bandwidth window: no intervals unless asked, and a full series says so", "[bandwidth]") {
  auto plain = BandwidthWindow::counted(1, 1);
  plain.start(0);
  for (std::uint64_t t = 1; t <= 5; ++t) CHECK_FALSE(plain.passed(t * 1'000'000, t, lanes_at({t})));
  plain.finish(6'000'000, 6, lanes_at({6}));
  CHECK_FALSE(plain.over_time(1000, 1.0));

  auto w = BandwidthWindow::counted(1, 1);
  w.keep_intervals(std::chrono::milliseconds(10), 0, 1.0);  // 10'000 ticks
  w.start(0);
  const std::uint64_t polls = rdmabench::detail::kCountedIntervals + 5;
  for (std::uint64_t i = 1; i <= polls; ++i) w.passed(i * 10'000, i, lanes_at({i}));
  w.finish(polls * 10'000 + 1, polls, lanes_at({polls}));
  const auto t = w.over_time(1000, 1.0);
  REQUIRE(t);
  CHECK(t->cut_short);
  CHECK(t->mb_per_s.size() == rdmabench::detail::kCountedIntervals);
}
