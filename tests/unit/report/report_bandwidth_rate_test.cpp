// A bandwidth run at a set rate (--rate) as the reporters give it: a line
// under the bandwidth row on the console, bandwidth.rate in JSON, both in
// the unit the rate was given in.

#include "catch2_compat.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>
#include <string>

#include "rdmabench/report/report.hpp"

using namespace rdmabench;

namespace {

RunContext bandwidth_context() {
  RunContext c;
  c.test = "write_bw";
  c.title = "RDMA Write BW Test";
  c.role = "client";
  c.device = "rxe0";
  c.tx_depth = 128;
  return c;
}

/// 9.988 Gb/s of a 10 Gb/s target, burst 4.
SizeResult paced_result() {
  SizeResult r;
  r.bytes = 65536;
  r.iterations = 30000;
  r.bandwidth = BandwidthFigures{1.6, 1260.0, 1248.5, 0.019051, 30000, {}};
  const Rate target{10e9, RateUnit::bits_per_second};
  const Rate achieved{9.988e9, RateUnit::bits_per_second};
  r.bandwidth_rate = BandwidthRate{AchievedRate{target, achieved, 0.9988}, 4};
  return r;
}

void render(std::unique_ptr<Reporter> reporter, const SizeResult& r) {
  reporter->begin(bandwidth_context());
  reporter->size_done(r);
  reporter->end();
}

}  // namespace

TEST_CASE("report: a paced bandwidth run prints its rate under the bandwidth row", "[report]") {
  std::ostringstream out;
  render(make_console_reporter(out), paced_result());
  const std::string text = out.str();
  const auto row = text.find("\n    65536 ");
  REQUIRE(row != std::string::npos);
  const auto next_line = text.find('\n', row + 1) + 1;
  CHECK(text.substr(next_line, text.find('\n', next_line) - next_line) ==
        "#         rate: 9.988 Gb/s of 10 Gb/s (99.88%), burst 4");
}

TEST_CASE("report: an unpaced bandwidth run has no rate line", "[report]") {
  SizeResult r = paced_result();
  r.bandwidth_rate.reset();
  std::ostringstream out;
  render(make_console_reporter(out), r);
  CHECK_THAT(out.str(), !Catch::Contains("rate:"));
  std::ostringstream json;
  render(make_json_reporter(json), r);
  CHECK_FALSE(nlohmann::json::parse(json.str())["bandwidth"].contains("rate"));
}

TEST_CASE("report: JSON bandwidth.rate gives target and achieved in the target's unit", "[report]") {
  std::ostringstream out;
  render(make_json_reporter(out), paced_result());
  const auto j = nlohmann::json::parse(out.str());
  const auto& rate = j["bandwidth"]["rate"];
  CHECK(rate["target"] == 10e9);
  CHECK(rate["achieved"] == 9.988e9);
  CHECK(rate["unit"] == "bits/s");
  CHECK(rate["ratio"] == 0.9988);
  CHECK(rate["burst"] == 4);
  CHECK(j["bandwidth"]["average_MBps"] == 1248.5);  // the figures beside it unchanged
}

TEST_CASE("report: JSON bandwidth.rate names byte and message units", "[report]") {
  SizeResult bytes = paced_result();
  bytes.bandwidth_rate->rate.target = Rate{500e6, RateUnit::bytes_per_second};
  std::ostringstream out;
  render(make_json_reporter(out), bytes);
  CHECK(nlohmann::json::parse(out.str())["bandwidth"]["rate"]["unit"] == "bytes/s");
  SizeResult messages = paced_result();
  messages.bandwidth_rate->rate.target = Rate{200e3, RateUnit::messages_per_second};
  std::ostringstream out2;
  render(make_json_reporter(out2), messages);
  CHECK(nlohmann::json::parse(out2.str())["bandwidth"]["rate"]["unit"] == "messages/s");
}
