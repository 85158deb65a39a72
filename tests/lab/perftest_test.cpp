// perftest in the same guest, as a sanity reference: if it cannot produce
// figures here, our figures from this guest mean nothing either.
#include <thread>

#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

/// Runs a perftest server/client pair; returns the client's numeric rows.
std::vector<std::vector<double>> perftest_pair(const std::string& tool, const Args& args) {
  const auto d = roce();
  const int port = free_port_pair();
  Args common{"-d", d.name, "-x", "1", "-p", std::to_string(port)};
  common.insert(common.end(), args.begin(), args.end());
  Args server{"/usr/bin/" + tool};
  server.insert(server.end(), common.begin(), common.end());
  Process s(server);
  std::this_thread::sleep_for(1s);  // perftest prints nothing until a client comes
  Args client = server;
  client.push_back(d.address);
  Process c(client);
  INFO("client: " << c.describe());
  INFO("server: " << s.describe());
  REQUIRE(c.wait_for(120s) == 0);
  REQUIRE(s.wait_for(30s) == 0);
  return table_rows(c.out());
}

}  // namespace

TEST_CASE("perftest ib_write_lat runs in the same guest", "[lab][perftest]") {
  const auto rows = perftest_pair("ib_write_lat", {"-n", "1000"});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][0] == 2);      // #bytes
  CHECK(rows[0][4] > 0);       // t_typical
}

TEST_CASE("perftest ib_write_bw runs in the same guest", "[lab][perftest]") {
  const auto rows = perftest_pair("ib_write_bw", {"-n", "2000"});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][0] == 65536);
  CHECK(rows[0][3] > 0);       // BW average
}
