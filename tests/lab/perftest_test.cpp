// perftest in the same guest, as a sanity reference: if it cannot produce
// figures here, our figures from this guest mean nothing either. And
// bare_send_lat, the perftest-shaped yardstick, which must run where
// perftest does and refuse what it cannot do.
#include <iterator>
#include <sstream>
#include <thread>

#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

/// Runs `server` (argv), then the same command with `address` appended as
/// its client, as perftest pairs run; requires both to succeed and returns
/// the client's output. Such a server prints nothing until its client comes,
/// so the client starts a second later.
std::string quiet_pair(const Args& server, const std::string& address) {
  Process s(server);
  std::this_thread::sleep_for(1s);
  Args client = server;
  client.push_back(address);
  Process c(client);
  INFO("client: " << c.describe());
  INFO("server: " << s.describe());
  REQUIRE(c.wait_for(120s) == 0);
  REQUIRE(s.wait_for(30s) == 0);
  return c.out();
}

/// Runs a perftest server/client pair; returns the client's numeric rows.
std::vector<std::vector<double>> perftest_pair(const std::string& tool, const Args& args) {
  const auto d = roce();
  Args server{"/usr/bin/" + tool, "-d", d.name, "-x", "1", "-p", std::to_string(free_port_pair())};
  server.insert(server.end(), args.begin(), args.end());
  return table_rows(quiet_pair(server, d.address));
}

/// bare_send_lat, the perftest-shaped yardstick, as a pair on `d`; returns
/// the client's one line: bytes, iterations, typical and p99 (usec).
std::vector<double> bare_pair(const Device& d, const Args& args) {
  Args server{bin("bare_send_lat"), "-p", std::to_string(free_port_pair())};
  server.insert(server.end(), args.begin(), args.end());
  std::istringstream line(quiet_pair(server, d.address));
  return {std::istream_iterator<double>(line), std::istream_iterator<double>()};
}

}  // namespace

TEST_CASE("perftest ib_write_lat runs in the same guest", "[lab][perftest]") {
  const auto rows = perftest_pair("ib_write_lat", {"-n", "1000"});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][0] == 2);  // #bytes
  CHECK(rows[0][4] > 0);   // t_typical
}

TEST_CASE("perftest ib_write_bw runs in the same guest", "[lab][perftest]") {
  const auto rows = perftest_pair("ib_write_bw", {"-n", "2000"});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][0] == 65536);
  CHECK(rows[0][3] > 0);  // BW average
}

TEST_CASE("bare_send_lat, the yardstick beside perftest, runs a pair on RoCEv2 and iWARP",
          "[lab][perftest]") {
  for (const Device& d : {roce(), iwarp()}) {
    INFO(d.name);
    const auto fields = bare_pair(d, {"-s", "4096", "-n", "500"});
    REQUIRE(fields.size() == 4);
    CHECK(fields[0] == 4096);
    CHECK(fields[1] == 500);
    CHECK(fields[2] > 0);           // typical one-way latency
    CHECK(fields[3] >= fields[2]);  // p99
  }
}

TEST_CASE("bare_send_lat names a bad option and a peer that is not there",
          "[sanitizer][lab][perftest][errors]") {
  Process bad({bin("bare_send_lat"), "-s", "0"});
  REQUIRE(bad.wait_for(10s) == 1);
  CHECK_THAT(bad.err(), Catch::Contains("-s 0 is not a whole number in 1..1048576"));

  const auto d = iwarp();
  Process lonely({bin("bare_send_lat"), "-p", std::to_string(free_port_pair()), d.address});
  INFO(lonely.describe());
  REQUIRE(lonely.wait_for(30s) == 1);
  CHECK_THAT(lonely.err(), Catch::Contains("that the other side runs bare_send_lat"));
}
