// Port counters around each size on the real soft devices: rxe's
// hw_counters by name, and for siw, which has none, the host's TCP
// counters, labelled host-wide.
#include "lab.hpp"

using namespace lab;

TEST_CASE("counters: rxe0's hw_counters move with the traffic and are in the client's record",
          "[lab][counters]") {
  const auto run = run_pair_json("rdma_write_bw", roce(), {"-s", "4096"}, {"-n", "200"});
  INFO(run.pair.client->describe());
  const auto& k = run.client.at("counters");
  CHECK_THAT(k.at("source").get<std::string>(), Catch::StartsWith(roce().name + " port 1"));
  CHECK(k.at("host_wide") == false);
  CHECK(k.at("read").get<int>() > 0);
  // The client sent 200 writes of 4 KiB and more: rxe counts its packets.
  CHECK(k.at("moved").value("sent_pkts", 0) >= 200);
  CHECK_THAT(run.pair.client->out(),
             Catch::Contains("#         counters (" + roce().name + " port 1"));
}

TEST_CASE(
    "counters: siw0 has none of its own, so the host's TCP counters stand in, labelled host-wide",
    "[lab][counters]") {
  const auto run = run_pair_json("rdma_write_bw", iwarp(), {"-s", "4096"}, {"-n", "200"});
  INFO(run.pair.client->describe());
  const auto& k = run.client.at("counters");
  CHECK(k.at("host_wide") == true);
  CHECK_THAT(k.at("source").get<std::string>(), Catch::Contains("host-wide"));
  CHECK(k.at("read").get<int>() >= 3);
}
