// --rate on the bandwidth tests: at rates well below what the lab's soft
// devices carry (roughly 0.3-1 Gb/s in the emulated guest), the client's
// achieved rate over the timed window is within 1% of its target, on RoCEv2
// (rxe0) and iWARP (siw0). -D 3 times the middle 2.4 s.
#include <cmath>
#include <string>
#include <vector>

#include "lab.hpp"
#include "median_ratio.hpp"

using namespace lab;

namespace {

/// One paced run; its ratio of achieved to target, after checking the rest
/// of the report.
double paced_ratio(const Device& d, const std::string& rate, double target_bits_per_s) {
  const auto run = run_pair_json("rdma_write_bw", d, {"-s", "16384", "-D", "3"}, {"--rate", rate});
  const auto& b = run.client.at("bandwidth");
  REQUIRE(b.contains("rate"));
  const auto& r = b.at("rate");
  CHECK(r.at("unit") == "bits/s");
  CHECK(r.at("target").get<double>() == target_bits_per_s);
  CHECK(r.at("burst") == 1);
  // The rate's figure agrees with the bandwidth's own (payload bits).
  const double average_bits_per_s = b.at("average_Gbps").get<double>() * 1e9;
  CHECK(r.at("achieved").get<double>() == Approx(average_bits_per_s).epsilon(1e-6));
  CHECK_THAT(run.pair.client->out(), Catch::Contains("rate: ") && Catch::Contains(" Mb/s of "));
  return r.at("ratio").get<double>();
}

/// 16 KiB messages keep the message rate low (at most about 1500 a second
/// here), which the emulated devices hold easily; the window still sees
/// hundreds of messages at the slowest rate, each signaled, so its count is
/// exact to a message or two.
void check_rate(const Device& d, const std::string& rate, double target_bits_per_s) {
  INFO(d.name << " at " << rate);
  check_median_ratio_within_1_percent([&] { return paced_ratio(d, rate, target_bits_per_s); });
}

void check_three_rates(const Device& d) {
  check_rate(d, "50Mbps", 50e6);
  check_rate(d, "100Mbps", 100e6);
  check_rate(d, "200Mbps", 200e6);
}

}  // namespace

TEST_CASE("write_bw --rate on RoCEv2: achieved within 1% of 50, 100 and 200 Mb/s", "[lab][rxe][rate]") {
  check_three_rates(roce());
}

TEST_CASE("write_bw --rate on iWARP: achieved within 1% of 50, 100 and 200 Mb/s", "[lab][siw][rate]") {
  check_three_rates(iwarp());
}

TEST_CASE("send_bw -q 2 --rate on RoCEv2: the rate held and shared equally by the QPs", "[lab][rxe][rate]") {
  check_median_ratio_within_1_percent([] {
    const auto run = run_pair_json("rdma_send_bw", roce(), {"-s", "16384", "-D", "3", "-q", "2"},
                                   {"--rate", "100Mbps"});
    const auto& b = run.client.at("bandwidth");
    const auto per_qp = b.at("per_qp_average_MBps").get<std::vector<double>>();
    REQUIRE(per_qp.size() == 2);
    // In turn, one message at a time: the two differ by at most a message or two.
    CHECK(per_qp[0] == Approx(per_qp[1]).epsilon(0.01));
    return b.at("rate").at("ratio").get<double>();
  });
}
