// Bandwidth over time on a real soft device: a 200 ms pause of the client
// in the middle of a -D run shows in the minimum and p1 of the interval
// rates, while the average over the window hides most of it.
#include <algorithm>

#include "lab.hpp"

using namespace lab;

TEST_CASE("over time: a paused client shows in the minimum and p1, the average hides it",
          "[lab][rxe][over-time]") {
  const JsonLines run = run_with_stall("rdma_write_bw", roce(), {"-s", "65536"}, /*stop_server=*/false);
  const auto& bw = run.client.at("bandwidth");
  INFO(bw.dump());
  const auto& t = bw.at("over_time");
  const double p50 = t.at("p50_MBps").get<double>();
  const double average = bw.at("average_MBps").get<double>();
  REQUIRE(p50 > 0);
  CHECK(t.at("interval_ms").get<double>() == Approx(100));
  // The window is 3.2 s: about 30 intervals of 100 ms, one of them
  // stretched to 200 ms and more by the pause.
  CHECK(t.at("intervals").get<int>() >= 20);
  const auto lengths = t.at("series_ms").get<std::vector<double>>();
  CHECK(*std::max_element(lengths.begin(), lengths.end()) >= 190);
  // The interval with the pause moved at most a third of its share...
  CHECK(t.at("min_MBps").get<double>() < 0.5 * p50);
  CHECK(t.at("p1_MBps").get<double>() < 0.5 * p50);
  // ...while the average lost about a sixteenth.
  CHECK(average > 0.8 * p50);
  CHECK_THAT(run.client_out, Catch::Contains("#         over time: "));
  // The port's counters per interval too, read beside the loop: rxe counts
  // the packets it sent in each, and no more than over the whole size.
  const auto& counters = run.client.at("counters");
  const auto& per_interval = counters.at("per_interval");
  CHECK(per_interval.at("ends_ms").size() >= 30);  // -D 4 at 100 ms
  const auto sent = per_interval.at("moved").at("sent_pkts").get<std::vector<std::uint64_t>>();
  std::uint64_t sum = 0;
  for (auto n : sent) sum += n;
  CHECK(sum > 0);
  CHECK(sum <= counters.at("moved").at("sent_pkts").get<std::uint64_t>());
}
