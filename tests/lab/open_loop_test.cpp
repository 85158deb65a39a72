// Open-loop latency (--rate) on real kernel RDMA: the schedule is kept
// (achieved / target within 1% at three rates, on RoCEv2 and iWARP), and a
// 200 ms stall of the sender shows in the response-time percentiles, while
// the closed-loop run beside it shows it only in its maximum (coordinated
// omission). The stall is the client's own (SIGSTOP): a read's target is
// its NIC, which answers with the server's process stopped, so stopping
// the server would stall nothing.
#include <signal.h>

#include <chrono>
#include <thread>

#include "lab.hpp"
#include "median_ratio.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

/// A read_lat pair with `client_extra`, its client stopped for 200 ms about
/// 1.5 s into its -D 4 run; the client's JSON line.
nlohmann::json read_lat_with_stall(const Device& d, const Args& client_extra) {
  TempDir tmp;
  const auto json = (tmp.path / "client.json").string();
  Args client{"-d", d.name, "--timeout", "5", "-D", "4", "--json", json};
  client.insert(client.end(), client_extra.begin(), client_extra.end());
  auto p = start_pair("rdma_read_lat", {"-d", d.name, "--timeout", "5"}, d.address, client);
  INFO("client: " << p.client->describe());
  REQUIRE(p.client->wait_for_output("#bytes", 30s));
  std::this_thread::sleep_for(1500ms);
  p.client->kill(SIGSTOP);
  std::this_thread::sleep_for(200ms);
  p.client->kill(SIGCONT);
  REQUIRE(p.client->wait_for(60s) == 0);
  REQUIRE(p.server->wait_for(30s) == 0);
  const auto lines = read_json_lines(json);
  REQUIRE(lines.size() == 1);
  return lines[0];
}

}  // namespace

// Rates well below what the devices carry even in a sanitizer build on a
// busy host: at 2000 msg/s siw0 once served reads in 10 ms there (median,
// 16 in flight), and the run fell to 60% of its target.
TEST_CASE("open loop keeps its schedule within 1% at three rates", "[lab][open-loop]") {
  for (const auto& d : {roce(), iwarp()}) {
    for (const char* rate : {"250", "500", "1000"}) {
      SECTION(d.name + " at " + rate + " msg/s") {
        check_median_ratio_within_1_percent([&] {
          auto [p, j] = run_pair_json("rdma_read_lat", d, {}, {"-D", "3", "--rate", rate});
          INFO(p.client->describe());
          const auto& o = j.at("open_loop");
          INFO(o.dump());
          CHECK(o.at("target_msg_per_s").get<double>() == Approx(std::stod(rate)));
          CHECK(j.at("latency").at("samples").get<double>() > 0.7 * 3 * std::stod(rate));
          CHECK_THAT(j.at("latency").at("kind").get<std::string>(), Catch::Contains("intended send time"));
          return o.at("achieved_to_target").get<double>();
        });
      }
    }
  }
}

TEST_CASE("a 200 ms stall shows in the open loop's p99, in the closed loop's max only", "[lab][open-loop]") {
  const auto d = roce();
  const nlohmann::json open = read_lat_with_stall(d, {"--rate", "1000"});
  const nlohmann::json closed = read_lat_with_stall(d, {});
  INFO("open loop: " << open.dump());
  INFO("closed loop: " << closed.dump());
  // At 1000 msg/s a 200 ms stall holds back ~200 of the window's 3200
  // messages (6%): the p99 (the slowest 32) waited most of the stall. No
  // upper bound on the late count: under the emulated CPU a stop lasts up
  // to 300 ms, and messages a few tens of usec late (the threshold is
  // 10 usec) come with the guest's scheduling (168 of 2400 in a run with
  // no stop); the unit tests hold the count to T x R exactly.
  CHECK(open.at("latency").at("p99").get<double>() >= 100'000);
  CHECK(open.at("open_loop").at("late").at("messages").get<double>() >= 150);
  CHECK(open.at("open_loop").at("late").at("lateness_usec").at("max").get<double>() >= 150'000);
  // The service time (from the post) does not carry the stall's wait.
  CHECK(open.at("open_loop").at("service_usec").at("p99").get<double>() < 100'000);
  // Closed loop: one sample spans the stall; the percentiles do not see it.
  CHECK(closed.at("latency").at("max").get<double>() >= 150'000);
  CHECK(closed.at("latency").at("p99").get<double>() < 50'000);
  CHECK_FALSE(closed.contains("open_loop"));
}
