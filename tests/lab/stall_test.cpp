// A stalled peer (SIGSTOP: alive to the kernel, silent to us) ends the other
// side within --timeout plus a few seconds, for every binary: a passive
// server hears no heartbeat, an active side sees no progress, a side at a
// barrier waits no longer than --timeout.
#include <signal.h>

#include <chrono>
#include <thread>

#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

constexpr auto kTimeout = 3s;
constexpr auto kSlack = 5s;

/// Runs `binary` on `d` with a count far beyond what the lab finishes, stops
/// one side once the loops run, and requires the other to exit non-zero with
/// an error within kTimeout + kSlack.
void stop_mid_run(const std::string& binary, const Device& d, bool stop_server, const Args& extra = {}) {
  Args both{"-d", d.name, "--timeout", "3"};
  both.insert(both.end(), extra.begin(), extra.end());
  Args client = both;
  client.insert(client.end(), {"-n", "10000000"});
  const bool atomic = binary.find("atomic") != std::string::npos;
  if (!atomic && binary.ends_with("_bw")) client.insert(client.end(), {"-s", "2"});
  auto p = start_pair(binary, both, d.address, client);
  INFO("client: " << p.client->describe());
  INFO("server: " << p.server->describe());
  REQUIRE(p.client->wait_for_output("#bytes", 30s));
  std::this_thread::sleep_for(500ms);
  Process& victim = stop_server ? *p.server : *p.client;
  Process& survivor = stop_server ? *p.client : *p.server;
  REQUIRE(survivor.running());
  victim.kill(SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  const auto rc = survivor.wait_for(kTimeout + kSlack);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  victim.kill(SIGKILL);  // a stopped process ends at once; never left behind
  INFO("survivor took " << took << " s");
  REQUIRE(rc.has_value());
  CHECK(*rc != 0);
  CHECK_THAT(survivor.err(), Catch::Contains("error:"));
}

}  // namespace

TEST_CASE("a stopped client ends every server within --timeout + 5 s, on RoCEv2", "[lab][stall]") {
  for (const char* binary : {"rdma_write_bw", "rdma_write_lat", "rdma_read_bw", "rdma_read_lat",
                             "rdma_send_bw", "rdma_send_lat", "rdma_atomic_bw", "rdma_atomic_lat"}) {
    SECTION(binary) { stop_mid_run(binary, roce(), false); }
  }
}

TEST_CASE("a stopped server ends the client within --timeout + 5 s, on RoCEv2", "[lab][stall]") {
  for (const char* binary : {"rdma_write_bw", "rdma_read_lat", "rdma_send_bw", "rdma_write_lat"}) {
    SECTION(binary) { stop_mid_run(binary, roce(), true); }
  }
}

TEST_CASE("a stopped client ends the passive server on iWARP and with rdma_cm on RoCEv2",
          "[lab][stall]") {
  SECTION("write_bw on iWARP") { stop_mid_run("rdma_write_bw", iwarp(), false); }
  SECTION("read_lat on iWARP") { stop_mid_run("rdma_read_lat", iwarp(), false); }
  SECTION("write_bw with -R on RoCEv2") { stop_mid_run("rdma_write_bw", roce(), false, {"-R"}); }
}

TEST_CASE("the passive server names the silent client", "[sanitizer][lab][stall]") {
  const auto d = roce();
  auto p = start_pair("rdma_write_bw", {"-d", d.name, "--timeout", "3"}, d.address,
                      {"-d", d.name, "--timeout", "3", "-n", "10000000", "-s", "2"});
  INFO("server: " << p.server->describe());
  REQUIRE(p.client->wait_for_output("#bytes", 30s));
  std::this_thread::sleep_for(500ms);
  p.client->kill(SIGSTOP);
  REQUIRE(p.server->wait_for(kTimeout + kSlack).has_value());
  p.client->kill(SIGKILL);
  CHECK_THAT(p.server->err(), Catch::Contains("went silent: no word from it for 3000 ms"));
}
