// Nearest-rank percentiles and the latency summary, against values computed
// by hand. Nearest rank: the sample at rank ceil(p/100 * N), 1-based.

#include "catch2_compat.hpp"

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/stats/stats.hpp"
#include "test_helpers.hpp"

using rdmabench::percentile_nearest_rank;
using rdmabench::summarize_latency;
using rdmabench::test::MessageContains;

namespace {

/// 1, 2, ..., n (already sorted).
std::vector<double> one_to(std::size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

}  // namespace

TEST_CASE("percentile_nearest_rank: a single sample is every percentile", "[stats]") {
  const std::vector<double> one{7.5};
  CHECK(percentile_nearest_rank(one, 0.001) == 7.5);
  CHECK(percentile_nearest_rank(one, 50) == 7.5);
  CHECK(percentile_nearest_rank(one, 100) == 7.5);
}

TEST_CASE("percentile_nearest_rank: even count 1..10", "[stats]") {
  const auto v = one_to(10);
  CHECK(percentile_nearest_rank(v, 50) == 5);   // rank 5, not the interpolated 5.5
  CHECK(percentile_nearest_rank(v, 90) == 9);   // rank 9
  CHECK(percentile_nearest_rank(v, 91) == 10);  // rank ceil(9.1) = 10
  CHECK(percentile_nearest_rank(v, 99) == 10);
  CHECK(percentile_nearest_rank(v, 10) == 1);
  CHECK(percentile_nearest_rank(v, 10.5) == 2);  // rank ceil(1.05) = 2
  CHECK(percentile_nearest_rank(v, 100) == 10);
}

TEST_CASE("percentile_nearest_rank: odd count", "[stats]") {
  const std::vector<double> v{10, 20, 30, 40, 50};
  CHECK(percentile_nearest_rank(v, 50) == 30);  // rank ceil(2.5) = 3
  CHECK(percentile_nearest_rank(v, 40) == 20);  // rank 2 exactly
  CHECK(percentile_nearest_rank(v, 41) == 30);
  CHECK(percentile_nearest_rank(v, 90) == 50);  // rank ceil(4.5) = 5
}

TEST_CASE("percentile_nearest_rank: exact ranks stay exact despite binary rounding", "[stats]") {
  // 0.99 * 100 is 99.00000000000001 in double; a naive ceil would give rank 100.
  const auto hundred = one_to(100);
  CHECK(percentile_nearest_rank(hundred, 50) == 50);
  CHECK(percentile_nearest_rank(hundred, 90) == 90);
  CHECK(percentile_nearest_rank(hundred, 99) == 99);
  CHECK(percentile_nearest_rank(hundred, 99.9) == 100);  // rank ceil(99.9)
  CHECK(percentile_nearest_rank(hundred, 99.99) == 100);

  const auto thousand = one_to(1000);
  CHECK(percentile_nearest_rank(thousand, 99.9) == 999);  // 0.999 * 1000 is not exact either
  CHECK(percentile_nearest_rank(thousand, 99.99) == 1000);

  const auto ten_thousand = one_to(10000);
  CHECK(percentile_nearest_rank(ten_thousand, 99.99) == 9999);
  CHECK(percentile_nearest_rank(ten_thousand, 99.9) == 9990);
}

TEST_CASE("percentile_nearest_rank: tiny percentages give the minimum", "[stats]") {
  const auto v = one_to(100);
  CHECK(percentile_nearest_rank(v, 1e-6) == 1);
  CHECK(percentile_nearest_rank(v, 1) == 1);
  CHECK(percentile_nearest_rank(v, 1.5) == 2);
}

TEST_CASE("percentile_nearest_rank: rejects an empty set, and percent <= 0 or > 100",
          "[stats]") {
  const std::vector<double> none;
  REQUIRE_THROWS_MATCHES(percentile_nearest_rank(none, 50), rdmabench::Error,
                         MessageContains("empty"));
  const auto v = one_to(10);
  for (double bad : {0.0, -1.0, 100.0001, 1000.0, std::numeric_limits<double>::quiet_NaN()}) {
    INFO("percent " << bad);
    REQUIRE_THROWS_MATCHES(percentile_nearest_rank(v, bad), rdmabench::Error,
                           MessageContains("(0, 100]"));
  }
}

TEST_CASE("summarize_latency: one sample", "[stats]") {
  const auto s = summarize_latency({3.25});
  CHECK(s.count == 1);
  CHECK(s.min == 3.25);
  CHECK(s.max == 3.25);
  CHECK(s.mean == 3.25);
  CHECK(s.stdev == 0);
  CHECK(s.median == 3.25);
  CHECK(s.p90 == 3.25);
  CHECK(s.p99 == 3.25);
  CHECK(s.p99_9 == 3.25);
  CHECK(s.p99_99 == 3.25);
}

TEST_CASE("summarize_latency: 1..10", "[stats]") {
  const auto s = summarize_latency(one_to(10));
  CHECK(s.count == 10);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.mean == 5.5);
  CHECK(s.stdev == Approx(std::sqrt(8.25)));  // population: sum((x-5.5)^2) = 82.5, / 10
  CHECK(s.median == 5);
  CHECK(s.p90 == 9);
  CHECK(s.p99 == 10);
  CHECK(s.p99_9 == 10);
  CHECK(s.p99_99 == 10);
}

TEST_CASE("summarize_latency: 1..100", "[stats]") {
  const auto s = summarize_latency(one_to(100));
  CHECK(s.median == 50);
  CHECK(s.p90 == 90);
  CHECK(s.p99 == 99);
  CHECK(s.p99_9 == 100);
  CHECK(s.p99_99 == 100);
  CHECK(s.mean == 50.5);
}

TEST_CASE("summarize_latency: 1..10000 separates every percentile", "[stats]") {
  const auto s = summarize_latency(one_to(10000));
  CHECK(s.median == 5000);
  CHECK(s.p90 == 9000);
  CHECK(s.p99 == 9900);
  CHECK(s.p99_9 == 9990);
  CHECK(s.p99_99 == 9999);
  CHECK(s.max == 10000);
}

TEST_CASE("summarize_latency: sorts its input", "[stats]") {
  const auto s = summarize_latency({9, 2, 7, 4, 5, 1, 3, 8, 6, 10});
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.median == 5);
  CHECK(s.p90 == 9);
}

TEST_CASE("summarize_latency: duplicates", "[stats]") {
  const auto s = summarize_latency({1, 1, 1, 1, 9});
  CHECK(s.count == 5);  // duplicates are kept, not merged
  CHECK(s.median == 1);
  CHECK(s.p90 == 9);  // rank ceil(4.5) = 5
  CHECK(s.mean == 2.6);
  CHECK(s.stdev == Approx(3.2));  // sum((x-2.6)^2) = 4*2.56 + 40.96 = 51.2; /5 = 10.24

  const auto same = summarize_latency({4, 4, 4});
  CHECK(same.stdev == 0);
  CHECK(same.min == 4);
  CHECK(same.p99_99 == 4);
}

TEST_CASE("summarize_latency: population mean and standard deviation", "[stats]") {
  // The textbook set: mean 5, population stdev exactly 2 (sample stdev would be 2.138).
  const auto s = summarize_latency({2, 4, 4, 4, 5, 5, 7, 9});
  CHECK(s.mean == 5);
  CHECK(s.stdev == 2);
}

TEST_CASE("summarize_latency: stdev stays exact on a large offset (two-pass)", "[stats]") {
  // A one-pass sum of squares loses everything here: 1e9^2 is beyond 2^53.
  const auto s = summarize_latency({1e9 + 1, 1e9 + 2, 1e9 + 3});
  CHECK(s.mean == 1e9 + 2);
  CHECK(s.stdev == Approx(std::sqrt(2.0 / 3.0)).epsilon(1e-9));
}

TEST_CASE("summarize_latency: rejects an empty sample set", "[stats]") {
  REQUIRE_THROWS_MATCHES(summarize_latency({}), rdmabench::Error,
                         MessageContains("no latency samples"));
}

// p/100*N carries rounding error that grows with N: the guard against it must
// grow too, or p99.9 of 2*10^7 samples lands on rank 19980001.
TEST_CASE("percentile_nearest_rank: exact ranks for 2*10^7 samples", "[stats]") {
  const auto v = one_to(20'000'000);
  CHECK(percentile_nearest_rank(v, 99.9) == 19'980'000);
}
