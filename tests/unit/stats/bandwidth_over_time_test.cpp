// Bandwidth over time: the interval rates between edges, and their minimum,
// p1, p50 and coefficient of variation.

#include "catch2_compat.hpp"

#include <vector>

#include "rdmabench/stats/bandwidth_over_time.hpp"

using rdmabench::bandwidth_over_time;
using rdmabench::RateEdge;

namespace {

/// Edges every `seconds`, each interval moving `bytes`, from time 0.
std::vector<RateEdge> steady_edges(int intervals, double seconds, std::uint64_t bytes) {
  std::vector<RateEdge> edges{{0, 0}};
  for (int i = 1; i <= intervals; ++i)
    edges.push_back({i * seconds, static_cast<std::uint64_t>(i) * bytes});
  return edges;
}

}  // namespace

TEST_CASE("bandwidth over time: a steady run has one rate and no spread", "[over-time]") {
  auto edges = steady_edges(10, 0.1, 100'000'000);  // 1000 MB/s
  edges.push_back({1.03, 1'030'000'000});           // a 30 ms tail
  const auto t = bandwidth_over_time(edges, 100, /*last_is_tail=*/true, false);
  REQUIRE(t);
  CHECK(t->mb_per_s.size() == 10);
  CHECK(t->lengths_ms.size() == 10);
  CHECK(t->lengths_ms.front() == Approx(100.0));
  CHECK(t->min_mb_per_s == Approx(1000.0));
  CHECK(t->p1_mb_per_s == Approx(1000.0));
  CHECK(t->p50_mb_per_s == Approx(1000.0));
  CHECK(t->cv == Approx(0.0).margin(1e-12));
  CHECK(t->tail_ms == Approx(30.0));
  CHECK(t->interval_ms == 100);
}

TEST_CASE("bandwidth over time: a stall shows in the minimum and p1 while the average hides it",
          "[over-time]") {
  // 20 intervals at 1000 MB/s, then one stretched by a 300 ms pause: 100 MB in 400 ms.
  auto edges = steady_edges(20, 0.1, 100'000'000);
  edges.push_back({2.4, 2'100'000'000});
  const auto t = bandwidth_over_time(edges, 100, /*last_is_tail=*/false, false);
  REQUIRE(t);
  REQUIRE(t->mb_per_s.size() == 21);
  CHECK(t->lengths_ms.back() == Approx(400.0));
  CHECK(t->min_mb_per_s == Approx(250.0));
  CHECK(t->p1_mb_per_s == Approx(250.0));  // rank ceil(0.01 x 21) = 1: the lowest
  CHECK(t->p50_mb_per_s == Approx(1000.0));
  const double average = 2100.0 / 2.4;  // 875 MB/s: an eighth below, not three quarters
  CHECK(t->min_mb_per_s < average / 3);
  CHECK(t->cv > 0.1);
  CHECK(t->tail_ms == 0);
}

TEST_CASE("bandwidth over time: the coefficient of variation is the sample stdev over the mean",
          "[over-time]") {
  const std::vector<RateEdge> edges{{0, 0}, {0.1, 10'000'000}, {0.2, 40'000'000}};  // 100, 300 MB/s
  const auto t = bandwidth_over_time(edges, 100, false, false);
  REQUIRE(t);
  REQUIRE(t->mb_per_s.size() == 2);
  CHECK(t->mb_per_s[0] == Approx(100.0));
  CHECK(t->mb_per_s[1] == Approx(300.0));
  CHECK(t->cv == Approx(0.70710678));  // sqrt(2 x 100^2 / 1) / 200
  CHECK(t->min_mb_per_s == Approx(100.0));
  CHECK(t->p50_mb_per_s == Approx(100.0));  // nearest rank: ceil(0.5 x 2) = 1
}

TEST_CASE("bandwidth over time: fewer than two whole intervals give no figures", "[over-time]") {
  CHECK_FALSE(bandwidth_over_time({}, 100, true, false));
  CHECK_FALSE(bandwidth_over_time({{0, 0}, {0.1, 100}}, 100, false, false));
  // Two edges after the first, but the last is the tail: one whole interval.
  CHECK_FALSE(bandwidth_over_time({{0, 0}, {0.1, 100}, {0.15, 150}}, 100, true, false));
}

TEST_CASE("bandwidth over time: a series cut short says so", "[over-time]") {
  const auto t = bandwidth_over_time(steady_edges(3, 0.1, 1000), 100, false, /*cut_short=*/true);
  REQUIRE(t);
  CHECK(t->cut_short);
}
