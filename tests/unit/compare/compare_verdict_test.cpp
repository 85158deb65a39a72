// Each verdict of lib/compare/change.cpp, in both directions, with and
// without an interval, and the thresholds that feed it.

#include "catch2_compat.hpp"

#include <limits>
#include <vector>

#include "rdmabench/compare/change.hpp"
#include "rdmabench/compare/thresholds.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

// In a namespace of its own, with the names it uses declared in it: the
// unity build puts other files' `using namespace rdmabench` (its Measurement)
// and `rdmabench::sweep` (its Better, Verdict, Thresholds) before these.
namespace compare_verdict_cases {

using namespace rdmabench::compare;
using rdmabench::test::MessageContains;
using rdmabench::compare::Better;
using rdmabench::compare::Thresholds;
using rdmabench::compare::Verdict;

TEST_CASE("compare verdict: the whole interval past the threshold decides", "[compare]") {
  // Bandwidth (higher is better), threshold 3%.
  CHECK(judge_change(-0.2, Interval{-0.25, -0.15}, 0.03, Better::higher).verdict == Verdict::regressed);
  CHECK(judge_change(0.2, Interval{0.15, 0.25}, 0.03, Better::higher).verdict == Verdict::improved);
  CHECK(judge_change(-0.01, Interval{-0.02, 0.005}, 0.03, Better::higher).verdict == Verdict::same);
  // Latency (lower is better): a rise is the regression.
  CHECK(judge_change(0.2, Interval{0.15, 0.25}, 0.1, Better::lower).verdict == Verdict::regressed);
  CHECK(judge_change(-0.2, Interval{-0.25, -0.15}, 0.1, Better::lower).verdict == Verdict::improved);
  // Beyond zero but not beyond the threshold: same.
  CHECK(judge_change(-0.025, Interval{-0.029, -0.021}, 0.03, Better::higher).verdict == Verdict::same);
}

TEST_CASE("compare verdict: a large change inside the noise is same, and says so", "[compare]") {
  const Change c = judge_change(-0.3, Interval{-0.6, 0.05}, 0.03, Better::higher);
  CHECK(c.verdict == Verdict::same);
  CHECK_THAT(c.note, Catch::Contains("inside the noise"));
  const Change d = judge_change(0.01, Interval{-0.2, 0.2}, 0.03, Better::higher);
  CHECK(d.verdict == Verdict::same);
  CHECK_THAT(d.note, Catch::Contains("not ruled out"));
  CHECK_THAT(d.note, Catch::Contains("20.0% lower"));
  // Noise that stays within the threshold needs no note.
  CHECK(judge_change(0.0, Interval{-0.01, 0.01}, 0.03, Better::higher).note.empty());
}

TEST_CASE("compare verdict: one run a side, the threshold alone, marked", "[compare]") {
  const Change c = measure_change(std::vector<double>{100}, std::vector<double>{90}, 0.03, Better::higher, {});
  CHECK(c.verdict == Verdict::regressed);
  CHECK_FALSE(c.interval);
  CHECK(c.note == "one repeat a side: no noise estimate");
  const Change d = measure_change(std::vector<double>{100, 101, 99}, std::vector<double>{99}, 0.03, Better::higher, {});
  CHECK(d.verdict == Verdict::same);
  CHECK_FALSE(d.interval);
  CHECK(d.note == "one repeat on the new side: no noise estimate");
}

TEST_CASE("compare verdict: a counter that never moved now moves", "[compare]") {
  const Change c = measure_change(std::vector<double>{0, 0, 0}, std::vector<double>{4, 7, 5}, 0.5, Better::lower, {});
  CHECK(c.verdict == Verdict::regressed);
  CHECK(badness(c) == std::numeric_limits<double>::infinity());
  // With the counters' floor, a few events either way are no change, and
  // many are one, from 0 too.
  const double floor = describe_figure("counter_completer_retry_err").floor;
  REQUIRE(floor == 10);
  const Change few = measure_change(std::vector<double>{0, 1, 0}, std::vector<double>{4, 7, 5}, 0.5, Better::lower, {}, floor);
  CHECK(few.verdict == Verdict::same);
  CHECK(few.point == 0);
  const Change many = measure_change(std::vector<double>{0, 1, 0}, std::vector<double>{40, 70, 50}, 0.5, Better::lower, {}, floor);
  CHECK(many.verdict == Verdict::regressed);
  CHECK(many.point == Approx(4));
}

TEST_CASE("compare thresholds: defaults, groups, keys and mistakes", "[compare]") {
  Thresholds t;
  CHECK(t.for_figure(describe_figure("bw_average_MBps")) == Approx(0.03));
  CHECK(t.for_figure(describe_figure("bw_average_Gbps")) == Approx(0.03));
  CHECK(t.for_figure(describe_figure("lat_p99_us")) == Approx(0.10));
  CHECK(t.for_figure(describe_figure("counter_rcvd_seq_err")) == Approx(0.5));
  t.apply("bw=5%, p99=12.5%");
  t.apply("lat_median_us=1%");
  CHECK(t.for_figure(describe_figure("bw_average_MBps")) == Approx(0.05));
  CHECK(t.for_figure(describe_figure("lat_p99_us")) == Approx(0.125));
  CHECK(t.for_figure(describe_figure("lat_median_us")) == Approx(0.01));
  CHECK(t.for_figure(describe_figure("lat_mean_us")) == Approx(0.05));
  CHECK(t.settings_text() == std::vector<std::string>{"bw=5%", "p99=12.5%", "lat_median_us=1%"});
  t.apply("all=20%");
  CHECK(t.for_figure(describe_figure("lat_median_us")) == Approx(0.2));
  REQUIRE_THROWS_MATCHES(t.apply("bw=3"), rdmabench::Error, MessageContains("no percentage"));
  REQUIRE_THROWS_MATCHES(t.apply("bw"), rdmabench::Error, MessageContains("expected NAME=PERCENT%"));
  REQUIRE_THROWS_MATCHES(t.apply("speed=3%"), rdmabench::Error, MessageContains("no group or figure is called 'speed'"));
  REQUIRE_THROWS_MATCHES(t.apply("bw=0%"), rdmabench::Error, MessageContains("out of range"));
  REQUIRE_THROWS_MATCHES(t.apply("bw=x%"), rdmabench::Error, MessageContains("is no number"));
  CHECK(percent_text(0.03) == "3%");
  CHECK(percent_text(0.125) == "12.5%");
}

}  // namespace compare_verdict_cases
