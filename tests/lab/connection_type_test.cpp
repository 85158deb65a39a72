// -c UC and -c UD as server/client pairs on RoCEv2, and the refusals that
// must come before connecting: UC/UD on iWARP, a UD size above the MTU.
#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

/// Runs `binary` with `extra` on both sides of rxe0; both write JSON.
BothJsonPair json_pair(const std::string& binary, const Args& extra) {
  auto run = run_pair_both_json(binary, roce(), extra);
  // One run, one id on both sides' records, so that they can be joined.
  CHECK(run.client.at("run_id").get<std::string>().size() == 14);
  CHECK(run.client.at("run_id") == run.server.at("run_id"));
  return run;
}

void check_send_latency(const std::string& type) {
  const auto run = json_pair("rdma_send_lat", {"-c", type, "-n", "300", "-s", "64", "--validate"});
  CHECK(run.client.at("validated") == true);  // the payload lands where RC's does
  for (const auto* j : {&run.client, &run.server}) CHECK(j->at("context").at("connection_type") == type);
  CHECK(run.client.at("latency").at("samples") == 300);
  CHECK(run.client.at("latency").at("min_us").get<double>() > 0);
  CHECK(run.server.at("latency").at("samples") == 299);
  CHECK_THAT(run.pair.client->out(), Catch::Contains(type + " queue pairs"));
}

/// The sender reports what it sent; the receiver what arrived, against it.
void check_send_bandwidth(const std::string& type) {
  const auto run = json_pair("rdma_send_bw", {"-c", type, "-n", "2000", "-s", "512", "--warmup", "100"});
  CHECK(run.client.at("context").at("connection_type") == type);
  CHECK(run.client.at("bandwidth").at("messages") == 2000);
  CHECK(run.client.at("bandwidth").at("average_MBps").get<double>() > 0);
  const auto& delivery = run.server.at("delivery");
  CHECK(delivery.at("sent") == 2100);
  const auto received = delivery.at("received").get<std::uint64_t>();
  CHECK(received > 1);
  CHECK(received <= 2100);
  CHECK(delivery.at("lost") == 2100 - received);
  CHECK(run.server.at("bandwidth").at("messages") == received - 1);
  CHECK_THAT(run.pair.server->out(), Catch::Contains("messages sent arrived"));
}

}  // namespace

TEST_CASE("send_lat -c UD on RoCEv2", "[sanitizer][lab][rxe][ud]") { check_send_latency("UD"); }
TEST_CASE("send_lat -c UC on RoCEv2", "[lab][rxe][uc]") { check_send_latency("UC"); }
TEST_CASE("send_bw -c UD on RoCEv2 reports what arrived", "[lab][rxe][ud]") { check_send_bandwidth("UD"); }
TEST_CASE("send_bw -c UC on RoCEv2 reports what arrived", "[sanitizer][lab][rxe][uc]") { check_send_bandwidth("UC"); }

TEST_CASE("write_bw -c UC on RoCEv2", "[lab][rxe][uc]") {
  const auto run = json_pair("rdma_write_bw", {"-c", "UC", "-n", "2000", "-s", "16384"});
  CHECK(run.client.at("context").at("connection_type") == "UC");
  CHECK(run.client.at("bandwidth").at("messages") == 2000);
  CHECK(run.client.at("bandwidth").at("average_MBps").get<double>() > 0);
}

TEST_CASE("send tests refuse -c UD and UC on iWARP before connecting, on both sides", "[lab][siw][ud][uc]") {
  const Device d = iwarp();
  const auto port = std::to_string(free_port_pair());
  for (const std::string type : {"UD", "UC"}) {
    // Nothing listens on the port: reaching the network would be another error.
    auto client = run_alone({bin("rdma_send_lat"), "-d", d.name, "-c", type, "-p", port, d.address});
    auto server = run_alone({bin("rdma_send_bw"), "-d", d.name, "-c", type, "-p", port});
    for (auto* p : {client.get(), server.get()}) {
      INFO(p->describe());
      CHECK(p->wait_for(0ms) == 1);
      CHECK_THAT(p->err(), Catch::Contains(d.name + " is iWARP, which offers only RC queue pairs: "
                                           "-c/--connection " + type + " cannot run on it"));
    }
  }
}

TEST_CASE("send_bw refuses -c UD with a size above the MTU before connecting", "[sanitizer][lab][rxe][ud]") {
  const Device d = roce();
  auto p = run_alone({bin("rdma_send_bw"), "-d", d.name, "-c", "UD", "-s", "8192", "-p",
                      std::to_string(free_port_pair()), d.address});
  INFO(p->describe());
  CHECK(p->wait_for(0ms) == 1);
  CHECK_THAT(p->err(), Catch::Contains("message size 8192 exceeds the path MTU of") &&
                           Catch::Contains("a UD message travels in one packet"));
}
