// Queue pair and registration settings on the soft devices: the inline
// defaults per test, PCIe relaxed ordering in the header (both devices take
// the optional flag and carry on), --pkey-index against the port, and RDMA
// reads on iWARP, whose sink now also allows remote write.
#include "lab.hpp"

using namespace lab;

TEST_CASE("verbs: bandwidth tests default to no inline data, latency tests to perftest's", "[lab][rxe][qp]") {
  const auto d = roce();
  const auto bw = run_pair_json("rdma_write_bw", d, {}, {"-n", "200", "-s", "64"});
  CHECK(bw.client["context"]["max_inline_bytes"] == 0);
  CHECK(bw.client["context"]["max_inline_reason"] == "bandwidth test default, as perftest's; -I sets it");
  const auto lat = run_pair_json("rdma_write_lat", d, {}, {"-n", "100"});
  CHECK(lat.client["context"]["max_inline_bytes"] == 220);
  CHECK_THAT(lat.pair.client->out(), Catch::Contains("max inline 220 bytes (latency test default"));
}

TEST_CASE("verbs: relaxed ordering is requested, never on the buffer write latency polls",
          "[sanitizer][lab][rxe][qp]") {
  const auto d = roce();
  const auto lat = run_pair_json("rdma_write_lat", d, {}, {"-n", "100", "--validate"});
  const auto& ro = lat.client["context"]["memory"]["relaxed_ordering"];
  CHECK(ro["local_buffer"] == true);
  CHECK(ro["exposed_buffer"] == false);
  CHECK_THAT(lat.pair.client->out(), Catch::Contains("PCIe ordering   : relaxed ordering requested for the source"));
  const auto off = run_pair_json("rdma_write_bw", d, {"--relaxed-ordering", "off"}, {"-n", "200"});
  CHECK(off.client["context"]["memory"]["relaxed_ordering"]["local_buffer"] == false);
  CHECK_THAT(off.pair.client->out(), Catch::Contains("PCIe ordering   : strict (--relaxed-ordering off)"));
}

TEST_CASE("verbs: RDMA reads on iWARP, relaxed ordering requested, validated", "[lab][siw][qp]") {
  const auto d = iwarp();
  const auto bw = run_pair_json("rdma_read_bw", d, {}, {"-n", "200", "--validate"});
  CHECK(bw.client.value("validated", false));
  CHECK(bw.client["context"]["memory"]["relaxed_ordering"]["exposed_buffer"] == true);
}

TEST_CASE("verbs: a --pkey-index beyond the port's table is refused, naming its size", "[sanitizer][lab][rxe][qp]") {
  const auto d = roce();
  Process server({bin("rdma_write_bw"), "-d", d.name, "--pkey-index", "65535", "-p",
                  std::to_string(free_port_pair())});
  INFO(server.describe());
  REQUIRE(server.wait_for(std::chrono::seconds(30)) == 1);
  CHECK_THAT(server.err(), Catch::Contains("--pkey-index 65535 does not exist on " + d.name + " port 1"));
}
