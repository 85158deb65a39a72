// Latency under load (--load-qps) on real kernel RDMA: on RoCEv2 (rxe0) and
// iWARP (siw0), a latency run with load queue pairs streaming writes, reads
// or sends beside it reports the load's own bandwidth (mean > 0 over
// intervals inside the timed part) and its latency figures, and the idle
// run beside it reports its figures without a load. Loaded is not asserted
// slower: on a soft device sharing a guest's CPUs the difference is real
// but noisy.
#include "lab.hpp"

using namespace lab;

namespace {

/// The latency object of a client's JSON line: figures present and ordered.
void check_latency_figures(const nlohmann::json& j) {
  const auto& l = j.at("latency");
  INFO(l.dump());
  CHECK(l.at("samples").get<double>() > 100);
  CHECK(l.at("median_us").get<double>() > 0);
  CHECK(l.at("p99_us").get<double>() >= l.at("median_us").get<double>());
  CHECK(l.at("p99_9_us").get<double>() >= l.at("p99_us").get<double>());
}

/// A -D 3 run of `binary` with `load` on the client; its JSON line, after
/// checking the load object and the console's load line.
nlohmann::json loaded_run(const std::string& binary, const Device& d, const Args& load,
                          const std::string& op) {
  auto [p, j] = run_pair_json(binary, d, {"--timeout", "5"}, [&] {
    Args client{"-D", "3"};
    client.insert(client.end(), load.begin(), load.end());
    return client;
  }());
  INFO(p.client->describe());
  REQUIRE(j.contains("load"));
  const auto& l = j.at("load");
  INFO(l.dump());
  CHECK(l.at("queue_pairs") == 4);
  CHECK(l.at("op") == op);
  CHECK(l.at("bytes") == 65536);
  CHECK(l.at("mean_Gbps").get<double>() > 0);
  CHECK(l.at("stdev_Gbps").get<double>() >= 0);
  // -D 3 times the middle 2.4 s: about 20 intervals of 100 ms lie inside.
  CHECK(l.at("intervals").get<int>() >= 10);
  CHECK(j.at("context").at("parameters").at("load_queue_pairs") == 4);
  CHECK_THAT(p.client->out(), Catch::Contains("load: 4 x " + op + " 64 KiB QPs"));
  return j;
}

}  // namespace

TEST_CASE("latency under load: read_lat with 4 load QPs, and idle beside it", "[lab][load]") {
  for (const auto& d : {roce(), iwarp()}) {
    SECTION(d.name) {
      const auto loaded = loaded_run("rdma_read_lat", d, {"--load-qps", "4"}, "write");
      check_latency_figures(loaded);
      auto [p, idle] = run_pair_json("rdma_read_lat", d, {"--timeout", "5"}, {"-D", "3"});
      INFO(p.client->describe());
      CHECK_FALSE(idle.contains("load"));
      CHECK_THAT(p.client->out(), !Catch::Contains("load:"));
      check_latency_figures(idle);
    }
  }
}

TEST_CASE("latency under load: write_lat under a read load", "[sanitizer][lab][load]") {
  for (const auto& d : {roce(), iwarp()}) {
    SECTION(d.name) {
      check_latency_figures(
          loaded_run("rdma_write_lat", d, {"--load-qps", "4", "--load-op", "read"}, "read"));
    }
  }
}

// A send load needs the server's receives: on siw0 a send that finds none
// ends the connection, so a whole -D 3 run with a load that kept its
// bandwidth shows the server kept ahead of four sending queue pairs.
TEST_CASE("latency under load: send_lat under a send load", "[sanitizer][lab][load]") {
  for (const auto& d : {roce(), iwarp()}) {
    SECTION(d.name) {
      check_latency_figures(
          loaded_run("rdma_send_lat", d, {"--load-qps", "4", "--load-op", "send"}, "send"));
    }
  }
}
