// The log-linear histogram against exact nearest-rank percentiles and the
// exact summary of the same samples (percentile_nearest_rank and
// summarize_latency from stats.cpp).

#include "catch2_compat.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/stats/histogram.hpp"
#include "rdmabench/stats/stats.hpp"
#include "test_helpers.hpp"

using rdmabench::Histogram;
using rdmabench::percentile_nearest_rank;
using rdmabench::summarize_latency;
using rdmabench::test::MessageContains;

namespace {

constexpr std::uint64_t kMaxTicks = std::numeric_limits<std::uint64_t>::max();

// 2.1 GHz: 10 us is 21000 ticks, far above the exact range.
constexpr double kHistogramTicksPerUs = 2100.0;

// Room for the last bits of double rounding when a bucket is 2^56 wide; far
// below any real mistake in the layout or the representative value.
constexpr double kBoundSlack = 1 + 1e-9;

/// 0.5, 1, ..., 100 and the far tail.
std::vector<double> percent_grid() {
  std::vector<double> grid;
  for (int i = 1; i <= 200; ++i) grid.push_back(0.5 * i);
  for (double p : {0.001, 0.01, 0.1, 99.95, 99.99, 99.995, 99.999}) grid.push_back(p);
  return grid;
}

std::vector<double> sorted_us(const std::vector<std::uint64_t>& ticks, double ticks_per_us) {
  std::vector<double> us;
  us.reserve(ticks.size());
  for (std::uint64_t t : ticks) us.push_back(static_cast<double>(t) / ticks_per_us);
  std::sort(us.begin(), us.end());
  return us;
}

Histogram record_all(const std::vector<std::uint64_t>& ticks) {
  Histogram h;
  for (std::uint64_t t : ticks) h.record(t);
  return h;
}

bool within_relative(double got, double exact, double relative) {
  return std::abs(got - exact) <= relative * std::abs(exact);
}

/// Checks every percentile of the grid against the exact one, in ticks; returns
/// the worst relative error seen.
double check_percentiles(const Histogram& h, const std::vector<std::uint64_t>& ticks) {
  const auto sorted = sorted_us(ticks, 1.0);
  double worst = 0;
  for (double p : percent_grid()) {
    const double exact = percentile_nearest_rank(sorted, p);
    const double got = h.percentile(p);
    INFO("p" << p << ": exact " << exact << ", histogram " << got);
    CHECK(within_relative(got, exact, h.relative_error() * kBoundSlack));
    if (exact > 0) worst = std::max(worst, std::abs(got - exact) / exact);
  }
  return worst;
}

/// Checks summarize() against summarize_latency() on the same samples.
void check_summary(const Histogram& h, const std::vector<std::uint64_t>& ticks,
                   double ticks_per_us) {
  const auto exact = summarize_latency(sorted_us(ticks, ticks_per_us));
  const auto got = h.summarize(ticks_per_us);
  const double bound = h.relative_error() * kBoundSlack;
  CHECK(got.count == exact.count);
  CHECK(got.min == exact.min);
  CHECK(got.max == exact.max);
  CHECK(within_relative(got.mean, exact.mean, 1e-9));
  INFO("stdev: exact " << exact.stdev << ", histogram " << got.stdev);
  CHECK(within_relative(got.stdev, exact.stdev, 1e-9));
  CHECK(within_relative(got.median, exact.median, bound));
  CHECK(within_relative(got.p90, exact.p90, bound));
  CHECK(within_relative(got.p99, exact.p99, bound));
  CHECK(within_relative(got.p99_9, exact.p99_9, bound));
  CHECK(within_relative(got.p99_99, exact.p99_99, bound));
}

}  // namespace

TEST_CASE("Histogram: layout size and stated bound follow the sub-bucket bits", "[histogram]") {
  const Histogram standard;
  CHECK(standard.sub_bucket_bits() == 7);
  CHECK(standard.bucket_count() == 58 * 128);  // (65 - S) * 2^S
  CHECK(standard.relative_error() == 1.0 / 256);
  const Histogram coarse(3);
  CHECK(coarse.bucket_count() == 62 * 8);
  CHECK(coarse.relative_error() == 1.0 / 16);
  const Histogram fine(12);
  CHECK(fine.bucket_count() == 53 * 4096);
  CHECK(fine.relative_error() == 1.0 / 8192);
  for (unsigned bad : {0u, 13u, 64u, 1000u}) {
    INFO("sub-bucket bits " << bad);
    REQUIRE_THROWS_MATCHES(Histogram(bad), rdmabench::Error, MessageContains("out of range"));
  }
}

TEST_CASE("Histogram: values below 2^(S+1) are exact", "[histogram]") {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::uint64_t> small(0, 255);
  std::vector<std::uint64_t> ticks{0, 255};
  for (int i = 0; i < 100'000; ++i) ticks.push_back(small(rng));
  const auto h = record_all(ticks);
  const auto sorted = sorted_us(ticks, 1.0);
  for (double p : percent_grid()) {
    INFO("p" << p);
    CHECK(h.percentile(p) == percentile_nearest_rank(sorted, p));
  }
  const auto exact = summarize_latency(sorted_us(ticks, kHistogramTicksPerUs));
  const auto got = h.summarize(kHistogramTicksPerUs);
  CHECK(got.median == exact.median);
  CHECK(got.p90 == exact.p90);
  CHECK(got.p99 == exact.p99);
  CHECK(got.p99_9 == exact.p99_9);
  CHECK(got.p99_99 == exact.p99_99);
}

TEST_CASE("Histogram: the rank and its rounding guard match percentile_nearest_rank",
          "[histogram]") {
  // Same rank rule and rounding guard: p99 of 100 samples is rank 99, and so on.
  std::vector<std::uint64_t> ticks;
  for (std::uint64_t v = 1; v <= 100; ++v) ticks.push_back(v);
  const auto hundred = record_all(ticks);
  CHECK(hundred.percentile(50) == 50);
  CHECK(hundred.percentile(90) == 90);
  CHECK(hundred.percentile(99) == 99);
  CHECK(hundred.percentile(99.9) == 100);
  CHECK(hundred.percentile(1.5) == 2);
  CHECK(hundred.percentile(1e-6) == 1);

  // 8.8 * 375 / 100 is 33.00000000000001 in double: still rank 33.
  ticks.clear();
  for (std::uint64_t v = 1; v <= 375; ++v) ticks.push_back(v);
  CHECK(record_all(ticks).percentile(8.8) == 33);
  CHECK(percentile_nearest_rank(sorted_us(ticks, 1.0), 8.8) == 33);
  // The guard must scale with N: 1.1 * 3*10^6 / 100 is 33000.00000000001.
  Histogram ones_then_twos;
  for (int i = 0; i < 3'000'000; ++i) ones_then_twos.record(i < 33'000 ? 1 : 2);
  CHECK(ones_then_twos.percentile(1.1) == 1);
  CHECK(ones_then_twos.percentile(1.1001) == 2);

  Histogram coarse(1);  // exact only below 4, yet rank 1 and rank N are min and max
  for (std::uint64_t v = 1001; v <= 11000; ++v) coarse.record(v);
  CHECK(coarse.percentile(0.01) == 1001);
  CHECK(coarse.percentile(99.995) == 11000);
  CHECK(coarse.percentile(100) == 11000);
  CHECK(coarse.percentile(50) != 6000);  // 4-ticks-per-power-of-two buckets cannot be exact
  CHECK(within_relative(coarse.percentile(50), 6000, coarse.relative_error()));
}

TEST_CASE("Histogram: tiny runs and constant runs are exact", "[histogram]") {
  Histogram one;
  one.record(123'456'789);
  for (double p : {0.001, 50.0, 99.99, 100.0}) CHECK(one.percentile(p) == 123'456'789);
  const auto s = one.summarize(1.0);
  CHECK(s.count == 1);
  CHECK(s.min == 123'456'789);
  CHECK(s.mean == 123'456'789);
  CHECK(s.stdev == 0);
  CHECK(s.median == 123'456'789);
  CHECK(s.p99_99 == 123'456'789);

  Histogram two;
  two.record(987'654'321);
  two.record(5'000);
  CHECK(two.percentile(50) == 5'000);
  CHECK(two.percentile(50.1) == 987'654'321);

  Histogram same;
  for (int i = 0; i < 1000; ++i) same.record(987'654'321);
  for (double p : percent_grid()) CHECK(same.percentile(p) == 987'654'321);
  CHECK(same.summarize(1.0).stdev == 0);
}

TEST_CASE("Histogram: uniform over [1000, 10^6] ticks", "[histogram]") {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::uint64_t> uniform(1000, 1'000'000);
  std::vector<std::uint64_t> ticks(1'000'000);
  for (auto& t : ticks) t = uniform(rng);
  const auto h = record_all(ticks);
  const double worst = check_percentiles(h, ticks);
  // The test must exercise the bucketing: errors are real, yet inside the bound.
  CHECK(worst > h.relative_error() / 4);
  CHECK(h.percentile(100) == static_cast<double>(*std::max_element(ticks.begin(), ticks.end())));
  check_summary(h, ticks, kHistogramTicksPerUs);
}

TEST_CASE("Histogram: exponential latencies", "[histogram]") {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> tail(1.0 / 20'000);
  std::vector<std::uint64_t> ticks(1'000'000);
  for (auto& t : ticks) t = 2'000 + static_cast<std::uint64_t>(tail(rng));
  const auto h = record_all(ticks);
  const double worst = check_percentiles(h, ticks);
  CHECK(worst > 0);
  check_summary(h, ticks, kHistogramTicksPerUs);
}

TEST_CASE("Histogram: bimodal, 99% near 10 us and 1% near 10 ms", "[histogram]") {
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> fast(10 * kHistogramTicksPerUs, 0.3 * kHistogramTicksPerUs);
  std::normal_distribution<double> slow(10'000 * kHistogramTicksPerUs, 1'000 * kHistogramTicksPerUs);
  std::bernoulli_distribution is_slow(0.01);
  std::vector<std::uint64_t> ticks(1'000'000);
  for (auto& t : ticks)
    t = static_cast<std::uint64_t>(std::max(1.0, is_slow(rng) ? slow(rng) : fast(rng)));
  const auto h = record_all(ticks);
  check_percentiles(h, ticks);
  check_summary(h, ticks, kHistogramTicksPerUs);
  const auto s = h.summarize(kHistogramTicksPerUs);
  CHECK(s.p90 < 11);      // the fast mode...
  CHECK(s.p99_9 > 5000);  // ...and the far tail are both seen
}

TEST_CASE("Histogram: huge values near 2^63 and 2^64 stay within the bound", "[histogram]") {
  std::mt19937_64 rng(99);
  SECTION("spread over [2^62, 2^64)") {
    std::uniform_int_distribution<std::uint64_t> huge(std::uint64_t{1} << 62, kMaxTicks);
    std::vector<std::uint64_t> ticks{0, kMaxTicks, kMaxTicks - 1};
    for (int i = 0; i < 100'000; ++i) ticks.push_back(huge(rng));
    const auto h = record_all(ticks);
    check_percentiles(h, ticks);
    CHECK(h.percentile(100) == static_cast<double>(kMaxTicks));
    CHECK(h.percentile(1e-6) == 0);
    check_summary(h, ticks, 1.0);
  }
  SECTION("straddling 2^63") {
    const std::uint64_t mid = std::uint64_t{1} << 63;
    std::uniform_int_distribution<std::uint64_t> near(mid - (std::uint64_t{1} << 40),
                                                      mid + (std::uint64_t{1} << 40));
    std::vector<std::uint64_t> ticks;
    for (int i = 0; i < 100'000; ++i) ticks.push_back(near(rng));
    const auto h = record_all(ticks);
    check_percentiles(h, ticks);
    check_summary(h, ticks, 1.0);
  }
}

TEST_CASE("Histogram: mean and stdev are exact, not bucketed, on a large offset", "[histogram]") {
  // A raw sum of squares of 1e9-sized values loses the spread entirely.
  Histogram h;
  for (std::uint64_t v : {1'000'000'001u, 1'000'000'002u, 1'000'000'003u}) h.record(v);
  const auto s = h.summarize(1.0);
  CHECK(s.mean == 1e9 + 2);
  CHECK(within_relative(s.stdev, std::sqrt(2.0 / 3.0), 1e-9));

  // The first sample, which the sums are taken relative to, is an outlier.
  std::vector<std::uint64_t> ticks{4'000'000'000'000};
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::uint64_t> jitter(5'000'000'000, 5'000'000'100);
  for (int i = 0; i < 100'000; ++i) ticks.push_back(jitter(rng));
  check_summary(record_all(ticks), ticks, kHistogramTicksPerUs);
}

TEST_CASE("Histogram: merge equals recording both sets into one", "[histogram]") {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::uint64_t> a_values(20'000, 30'000);
  std::exponential_distribution<double> b_tail(1.0 / 1e6);
  std::vector<std::uint64_t> a(200'000), b(50'000);
  for (auto& t : a) t = a_values(rng);
  for (auto& t : b) t = 50'000 + static_cast<std::uint64_t>(b_tail(rng));

  Histogram both, merged, part;
  for (std::uint64_t t : a) {
    both.record(t);
    merged.record(t);
  }
  for (std::uint64_t t : b) {
    both.record(t);
    part.record(t);
  }
  merged.merge(part);

  CHECK(merged.count() == both.count());
  CHECK(merged.min() == both.min());
  CHECK(merged.max() == both.max());
  for (double p : percent_grid()) {
    INFO("p" << p);
    CHECK(merged.percentile(p) == both.percentile(p));
  }
  const auto m = merged.summarize(kHistogramTicksPerUs);
  const auto o = both.summarize(kHistogramTicksPerUs);
  CHECK(within_relative(m.mean, o.mean, 1e-9));
  CHECK(within_relative(m.stdev, o.stdev, 1e-9));
  std::vector<std::uint64_t> all = a;
  all.insert(all.end(), b.begin(), b.end());
  check_summary(merged, all, kHistogramTicksPerUs);

  SECTION("into an empty histogram, and of an empty one") {
    Histogram empty, target;
    target.merge(part);
    target.merge(empty);
    CHECK(target.count() == part.count());
    CHECK(target.min() == part.min());
    CHECK(target.percentile(50) == part.percentile(50));
    check_summary(target, b, kHistogramTicksPerUs);
  }
  SECTION("with itself: every sample twice") {
    std::vector<std::uint64_t> twice = b;
    twice.insert(twice.end(), b.begin(), b.end());
    part.merge(part);
    CHECK(part.count() == twice.size());
    check_summary(part, twice, kHistogramTicksPerUs);
  }
  SECTION("different layouts are refused") {
    Histogram other(8);
    other.record(1);
    REQUIRE_THROWS_MATCHES(merged.merge(other), rdmabench::Error,
                           MessageContains("different layouts"));
    CHECK(merged.count() == both.count());
  }
}

TEST_CASE("Histogram: memory does not depend on the sample count", "[histogram]") {
  Histogram h;
  const std::size_t bytes = h.storage_bytes();
  const std::size_t buckets = h.bucket_count();
  CHECK(bytes == sizeof(Histogram) + buckets * sizeof(std::uint64_t));
  CHECK(bytes < 64 * 1024);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 10'000'000; ++i) h.record(rng() >> (i % 64));
  CHECK(h.count() == 10'000'000);
  CHECK(h.storage_bytes() == bytes);
  CHECK(h.bucket_count() == buckets);
}

TEST_CASE("Histogram: rejects an empty summary and bad arguments", "[histogram]") {
  const Histogram empty;
  REQUIRE_THROWS_MATCHES(empty.summarize(kHistogramTicksPerUs), rdmabench::Error,
                         MessageContains("no latency samples"));
  REQUIRE_THROWS_MATCHES(empty.percentile(50), rdmabench::Error, MessageContains("empty"));
  Histogram h;
  h.record(10);
  for (double bad : {0.0, -1.0, 100.0001, std::numeric_limits<double>::quiet_NaN()}) {
    INFO("percent " << bad);
    REQUIRE_THROWS_MATCHES(h.percentile(bad), rdmabench::Error, MessageContains("(0, 100]"));
  }
  for (double bad : {0.0, -2.0, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    INFO("ticks per us " << bad);
    REQUIRE_THROWS_MATCHES(h.summarize(bad), rdmabench::Error,
                           MessageContains("ticks per microsecond"));
  }
}
