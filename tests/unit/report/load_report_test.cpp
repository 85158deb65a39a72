// Latency under load (--load-qps): the load's bandwidth over the intervals
// inside the latency's loop, and the line and object the reporters give it.

#include "catch2_compat.hpp"

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "rdmabench/report/report.hpp"
#include "rdmabench/stats/interval_rate.hpp"

using namespace rdmabench;

namespace {

/// Edges every 0.1 s from 0: bytes_per_interval[i] completed in the interval
/// that ends at edge i + 1.
std::vector<RateEdge> edges(const std::vector<std::uint64_t>& bytes_per_interval) {
  std::vector<RateEdge> e{{0.0, 0}};
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < bytes_per_interval.size(); ++i) {
    total += bytes_per_interval[i];
    e.push_back({0.1 * static_cast<double>(i + 1), total});
  }
  return e;
}

}  // namespace

TEST_CASE("load: interval rates count only the intervals inside the window", "[load]") {
  // 125 MB in 0.1 s is 10 Gb/s; 250 MB, 20 Gb/s. The first and last
  // intervals (1 MB each) lie partly outside the window and must not count.
  const auto e = edges({1'000'000, 125'000'000, 250'000'000, 125'000'000, 1'000'000});
  const auto r = interval_rate(e, 0.05, 0.45);
  CHECK(r.intervals == 3);
  CHECK(r.mean_gbps == Approx(40.0 / 3));
  // Sample stdev of 10, 20, 10: sqrt(((10/3)^2 * 2 + (20/3)^2) / 2) = 5.7735.
  CHECK(r.stdev_gbps == Approx(5.7735).epsilon(1e-4));
}

TEST_CASE("load: a steady stream has no spread, one interval has none either", "[load]") {
  const auto steady = interval_rate(edges({125'000'000, 125'000'000, 125'000'000}), 0, 0.35);
  CHECK(steady.intervals == 3);
  CHECK(steady.mean_gbps == Approx(10));
  CHECK(steady.stdev_gbps == Approx(0).margin(1e-9));
  const auto one = interval_rate(edges({125'000'000, 250'000'000, 125'000'000}), 0.1, 0.2);
  CHECK(one.intervals == 1);
  CHECK(one.mean_gbps == Approx(20));
  CHECK(one.stdev_gbps == 0);
}

TEST_CASE("load: a window shorter than an interval takes the edges around it", "[load]") {
  // The window 0.12..0.18 holds no whole interval: the one around it,
  // 0.1..0.2, carried 250 MB.
  const auto r = interval_rate(edges({125'000'000, 250'000'000, 125'000'000}), 0.12, 0.18);
  CHECK(r.intervals == 1);
  CHECK(r.mean_gbps == Approx(20));
  // Nothing around it (a window past the last edge): no intervals, no rate.
  CHECK(interval_rate(edges({125'000'000}), 0.5, 0.6) == IntervalRate{});
  CHECK(interval_rate({}, 0, 1) == IntervalRate{});
}

TEST_CASE("load: the report gives the load's line under the latency row, and a load object", "[load]") {
  RunContext c;
  c.test = "read_lat";
  c.role = "client";
  c.latency_kind = "round trip (one read)";
  SizeResult r;
  r.bytes = 2;
  r.iterations = 1000;
  LatencySummary l;
  l.count = 1000;
  l.median = 12.5;
  r.latency = l;
  r.load = LoadFigures{4, "write", 65536, 0.412, 0.031, 23};
  std::ostringstream out;
  auto console = make_console_reporter(out);
  console->begin(c);
  console->size_done(r);
  console->end();
  CHECK_THAT(out.str(), Catch::Contains("\n#         load: 4 x write 64 KiB QPs, 0.412 \u00b1 0.031 Gb/s "
                                        "over 23 intervals\n"));
  r.load = LoadFigures{1, "read", 1000, 1.5, 0, 1};
  std::ostringstream one;
  auto single = make_console_reporter(one);
  single->begin(c);
  single->size_done(r);
  CHECK_THAT(one.str(), Catch::Contains("load: 1 x read 1000 B QP, 1.500 \u00b1 0.000 Gb/s over 1 interval\n"));

  r.load = LoadFigures{4, "write", 65536, 0.412, 0.031, 23};
  const auto j = to_json(r, c);
  CHECK(j["load"] == nlohmann::json{{"queue_pairs", 4},   {"op", "write"},       {"bytes", 65536},
                                    {"mean_Gbps", 0.412}, {"stdev_Gbps", 0.031}, {"intervals", 23}});
  r.load.reset();
  CHECK_FALSE(to_json(r, c).contains("load"));
}

TEST_CASE("load: the JSON parameters name the load's rows", "[load]") {
  RunContext c;
  c.parameters.load_queue_pairs = 4;
  c.parameters.load_op = LoadOp::read;
  const auto j = to_json(c);
  CHECK(j["parameters"]["load_queue_pairs"] == 4);
  CHECK(j["parameters"]["load_size"] == 65536);
  CHECK(j["parameters"]["load_op"] == "read");
}
