// The bootstrap interval of a relative change of medians (lib/compare/
// bootstrap.cpp): medians and the zero rule, the same interval for the
// same seed, a known shift found inside its interval, no shift with 0
// inside, and the false-regression rate of equal distributions.

#include "catch2_compat.hpp"

#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "rdmabench/compare/bootstrap.hpp"
#include "rdmabench/compare/change.hpp"
#include "rdmabench/compare/figures.hpp"
#include "rdmabench/compare/thresholds.hpp"

// In a namespace of its own, with the names it uses declared in it: the
// unity build puts other files' `using namespace rdmabench` (its Measurement)
// and `rdmabench::sweep` (its Better, Verdict, Thresholds) before these.
namespace compare_bootstrap_cases {

using namespace rdmabench::compare;
using rdmabench::compare::Better;
using rdmabench::compare::Thresholds;
using rdmabench::compare::Verdict;

namespace {

/// `n` draws of a normal distribution (mean, sd) from `seed`; the draws
/// come from mt19937_64's fixed output through Box-Muller, so they are the
/// same with every standard library.
std::vector<double> normal_draws(std::uint64_t seed, std::size_t n, double mean, double sd) {
  std::mt19937_64 rng(seed);
  const auto uniform = [&] { return (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0; };
  std::vector<double> draws;
  while (draws.size() < n) {
    const double r = std::sqrt(-2 * std::log(uniform())), angle = 2 * M_PI * uniform();
    draws.push_back(mean + sd * r * std::cos(angle));
    if (draws.size() < n) draws.push_back(mean + sd * r * std::sin(angle));
  }
  return draws;
}

}  // namespace

TEST_CASE("compare: median of an odd and an even count, and the change from zero", "[compare]") {
  CHECK(median_of(std::vector<double>{3, 1, 2}) == 2);
  CHECK(median_of(std::vector<double>{4, 1, 3, 2}) == 2.5);
  CHECK(median_of(std::vector<double>{7}) == 7);
  CHECK(relative_change(100, 80) == Approx(-0.2));
  CHECK(relative_change(0, 0) == 0);
  CHECK(std::isinf(relative_change(0, 5)));
}

TEST_CASE("compare: the bootstrap gives the same interval for the same seed, another for another", "[compare]") {
  // Forty values a side: with five, a resample's median is one of five
  // values, and two seeds can well give the same percentiles.
  const auto olds = normal_draws(11, 40, 100, 5), news = normal_draws(12, 40, 100, 5);
  const Interval a = bootstrap_change(olds, news, {2000, 0.95, 7});
  const Interval b = bootstrap_change(olds, news, {2000, 0.95, 7});
  const Interval c = bootstrap_change(olds, news, {2000, 0.95, 8});
  CHECK(a.low == b.low);
  CHECK(a.high == b.high);
  CHECK((a.low != c.low || a.high != c.high));
  CHECK(a.low <= a.high);
}

TEST_CASE("compare: a known 20% fall lies inside its interval, which excludes no change", "[compare]") {
  // 2% noise (sd 2 of 100), five repeats a side.
  const auto olds = normal_draws(21, 5, 100, 2), news = normal_draws(22, 5, 80, 1.6);
  const Interval i = bootstrap_change(olds, news, {2000, 0.95, 1});
  INFO("interval " << i.low << " to " << i.high);
  CHECK(i.low < -0.2);
  CHECK(i.high > -0.2);
  CHECK(i.high < -0.1);
  const Change c = measure_change(olds, news, 0.03, Better::higher, {2000, 0.95, 1});
  CHECK(c.verdict == Verdict::regressed);
  CHECK(c.point == Approx(-0.2).margin(0.04));
}

TEST_CASE("compare: with no shift the interval stays near no change, and the verdict is same", "[compare]") {
  // 2% noise against the 3% threshold: the two samples' medians differ by
  // chance (here by about 3%), and the interval reaches past no change.
  const auto olds = normal_draws(31, 5, 100, 2), news = normal_draws(32, 5, 100, 2);
  const Interval i = bootstrap_change(olds, news, {2000, 0.95, 1});
  INFO("interval " << i.low << " to " << i.high);
  CHECK(i.low > -0.1);
  CHECK(i.high < 0.1);
  CHECK(i.high > -0.03);  // not wholly past the threshold: no regression
  CHECK(measure_change(olds, news, 0.03, Better::higher, {2000, 0.95, 1}).verdict == Verdict::same);
}

TEST_CASE("compare: 200 seeded trials of equal distributions, noise above the threshold, few false regressions",
          "[compare]") {
  // Five repeats a side of one distribution with a 10% coefficient of
  // variation: three times the default bandwidth threshold (3%), so the
  // threshold alone would call many of them changes, and only the interval
  // keeps them `same`.
  const FigureInfo bandwidth = describe_figure("bw_average_MBps");
  const double threshold = Thresholds().for_figure(bandwidth);
  REQUIRE(threshold == Approx(0.03));
  int regressed = 0, improved = 0, threshold_alone = 0;
  constexpr int kTrials = 200;
  for (int trial = 0; trial < kTrials; ++trial) {
    const auto olds = normal_draws(1000 + 2 * static_cast<std::uint64_t>(trial), 5, 100, 10);
    const auto news = normal_draws(1001 + 2 * static_cast<std::uint64_t>(trial), 5, 100, 10);
    const Change c = measure_change(olds, news, threshold, bandwidth.better, {2000, 0.95, 1});
    regressed += c.verdict == Verdict::regressed;
    improved += c.verdict == Verdict::improved;
    threshold_alone += judge_change(c.point, std::nullopt, threshold, bandwidth.better).verdict == Verdict::regressed;
  }
  std::cout << "compare: equal distributions (CV 10%, 5 repeats a side, bw threshold 3%): " << regressed << " of "
            << kTrials << " trials regressed, " << improved << " improved; the threshold alone would have called "
            << threshold_alone << " regressed\n";
  // A 95% interval misses on its low side 2.5% of the time at its nominal
  // level; the percentile bootstrap of a median of five covers less than
  // nominal, so the bound allows twice that: 5%, 10 of 200.
  CHECK(regressed <= kTrials / 20);
  CHECK(improved <= kTrials / 20);
  // The interval does the work: the point estimates alone cross the threshold often.
  CHECK(threshold_alone > 4 * regressed);
}

}  // namespace compare_bootstrap_cases
