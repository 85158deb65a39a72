// Open-loop latency (--rate) on real kernel RDMA: the schedule is kept
// (achieved / target within 1% at three rates, on RoCEv2 and iWARP), and a
// 200 ms stall shows in the response-time percentiles, while the
// closed-loop run beside it shows it only in its maximum (coordinated
// omission). For reads the stall is the client's own (SIGSTOP): a read's
// target is its NIC, which answers with the server's process stopped, so
// stopping the server would stall nothing. send_lat's server answers every
// message with its CPU (an echo), so there the responder is stopped.
#include <signal.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>

#include "lab.hpp"
#include "median_ratio.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

nlohmann::json read_lat_with_stall(const Device& d, const Args& client_extra) {
  return run_with_stall("rdma_read_lat", d, client_extra, false).client;
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
  CHECK(open.at("latency").at("p99_us").get<double>() >= 100'000);
  CHECK(open.at("open_loop").at("late").at("messages").get<double>() >= 150);
  CHECK(open.at("open_loop").at("late").at("lateness").at("max_us").get<double>() >= 150'000);
  // The service time (from the post) does not carry the stall's wait.
  CHECK(open.at("open_loop").at("service").at("p99_us").get<double>() < 100'000);
  // Closed loop: one sample spans the stall; the percentiles do not see it.
  CHECK(closed.at("latency").at("max_us").get<double>() >= 150'000);
  CHECK(closed.at("latency").at("p99_us").get<double>() < 50'000);
  CHECK_FALSE(closed.contains("open_loop"));
}

TEST_CASE("open loop: a 200 ms stop of send_lat's responder shows in p99 and in the closed loop's max only",
          "[lab][open-loop]") {
  for (const auto& d : {roce(), iwarp()}) {
    SECTION(d.name) {
      const JsonLines open = run_with_stall("rdma_send_lat", d, {"--rate", "1000"}, true);
      const JsonLines closed = run_with_stall("rdma_send_lat", d, {}, true);
      INFO("open loop: " << open.client.dump());
      INFO("closed loop: " << closed.client.dump());
      // The server learned from the hello that it echoes.
      CHECK(open.server.at("context").at("parameters").at("open_loop").get<bool>());
      CHECK_FALSE(closed.server.at("context").at("parameters").at("open_loop").get<bool>());
      // At 1000 msg/s the stop holds back ~200 of the window's 3200
      // messages (6%): the first -t wait in flight for their answers, the
      // rest to leave (the window is full); each is charged from its due
      // time, so the p99 waited most of the stop.
      CHECK(open.client.at("latency").at("p99_us").get<double>() >= 100'000);
      CHECK(open.client.at("latency").at("max_us").get<double>() >= 150'000);
      CHECK(open.client.at("open_loop").at("achieved_to_target").get<double>() == Approx(1.0).margin(0.05));
      // Closed loop: one round trip spans the stop, and its one-way sample
      // is half of it; the percentiles do not see it.
      CHECK(closed.client.at("latency").at("max_us").get<double>() >= 75'000);
      CHECK(closed.client.at("latency").at("p99_us").get<double>() < 50'000);
      CHECK_FALSE(closed.client.contains("open_loop"));
    }
  }
}

TEST_CASE("open loop send and write latency keep their schedule within 1%", "[lab][open-loop]") {
  const auto d = roce();
  for (const char* binary : {"rdma_send_lat", "rdma_write_lat"}) {
    SECTION(binary) {
      auto [p, j] = run_pair_json(binary, d, {}, {"-D", "3", "--rate", "1000"});
      INFO(p.client->describe());
      INFO(p.server->describe());
      const auto& o = j.at("open_loop");
      INFO(o.dump());
      CHECK(o.at("target_msg_per_s").get<double>() == Approx(1000));
      CHECK(o.at("achieved_to_target").get<double>() == Approx(1.0).margin(0.01));
      CHECK(j.at("latency").at("samples").get<double>() > 0.7 * 3 * 1000);
      CHECK_THAT(j.at("latency").at("kind").get<std::string>(),
                 Catch::Contains("round trip (a message and its answer)") &&
                     Catch::Contains("intended send time"));
      CHECK(j.at("context").at("parameters").at("open_loop").get<bool>());
    }
  }
}

TEST_CASE("open loop send and write latency with -n keep every message's times", "[sanitizer][lab][open-loop]") {
  const auto d = roce();
  for (const char* binary : {"rdma_send_lat", "rdma_write_lat"}) {
    SECTION(binary) {
      TempDir tmp;
      const auto samples = (tmp.path / "samples.txt").string();
      auto [p, j] = run_pair_json(binary, d, {}, {"-n", "500", "--rate", "2000", "-t", "4", "--dump-samples", samples});
      INFO(p.client->describe());
      CHECK(j.at("latency").at("samples").get<double>() == 500);
      CHECK(j.at("open_loop").at("service").at("median_us").get<double>() > 0);
      // One line per timed message: intended, posted and answered, in usec;
      // never posted before its time, never answered before its post.
      std::istringstream in(read_file(samples));
      int messages = 0;
      for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        double intended = -1, posted = -1, answered = -1;
        REQUIRE((fields >> intended >> posted >> answered));
        CHECK(posted >= intended);
        CHECK(answered > posted);
        ++messages;
      }
      CHECK(messages == 500);
    }
  }
}

TEST_CASE("open loop write latency is refused on iWARP and names send_lat instead", "[sanitizer][lab][open-loop]") {
  const auto d = iwarp();
  auto p = start_pair("rdma_write_lat", {"-d", d.name, "--timeout", "5"}, d.address,
                      {"-d", d.name, "--timeout", "5", "--rate", "1000", "-n", "100"});
  INFO("client: " << p.client->describe());
  REQUIRE(p.client->wait_for(30s) == 1);
  CHECK_THAT(p.client->err(), Catch::Contains("no RDMA write with immediate data: rdma_write_lat --rate needs it") &&
                                  Catch::Contains("run rdma_send_lat --rate here"));
}
