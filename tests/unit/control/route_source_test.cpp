// Where this host's packets leave from (lib/control/route_source.cpp) and
// --source-ip on the control connection: an address that is not this
// host's is named before anything connects; the kernel's route gives the
// source the GID follows; a bound control connection arrives from its
// address (127.0.0.2: every 127/8 address is lo's on Linux).

#include "catch2_compat.hpp"

#include <unistd.h>

#include <future>
#include <string>

#include "control/route_source.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using namespace rdmabench::detail;
using rdmabench::test::MessageContains;

namespace {

/// A listener on 127.0.0.1 and a free port (after the pid, as the control
/// channel's tests choose theirs, in another range).
std::pair<ControlListener, std::uint16_t> listen_on_loopback() {
  const int base = 20000 + static_cast<int>(::getpid() % 15000);
  for (int attempt = 0; attempt < 50; ++attempt) {
    const auto port = static_cast<std::uint16_t>(base + attempt * 11);
    try {
      return {ControlListener(port, Milliseconds(2000), "127.0.0.1"), port};
    } catch (const Error&) {
      // taken; try the next
    }
  }
  FAIL("no free port for the listener");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("source ip: an address that is not this host's, or no address, is named", "[unit][control]") {
  CHECK_NOTHROW(require_host_address("127.0.0.1"));
  // 192.0.2.77: TEST-NET-1 (RFC 5737), on no host's interface.
  REQUIRE_THROWS_MATCHES(require_host_address("192.0.2.77"), Error,
                         MessageContains("--source-ip 192.0.2.77 is not an address of this host"));
  REQUIRE_THROWS_MATCHES(require_host_address("rail1-host"), Error,
                         MessageContains("--source-ip rail1-host is not a numeric IP address"));
  // The client's choice checks it before anything else.
  REQUIRE_THROWS_MATCHES(client_gid_source("10.0.2.15", "192.0.2.77"), Error,
                         MessageContains("is not an address of this host"));
}

TEST_CASE("source ip: the client's GID follows it, and must be its", "[unit][control]") {
  const auto given = client_gid_source("10.0.2.15", "127.0.0.1");
  REQUIRE(given);
  CHECK(given->address == "127.0.0.1");
  CHECK(given->learnt_from == "given with --source-ip");
  CHECK(given->required);
}

TEST_CASE("route source: the kernel's route, and the loopback's that no RDMA port holds", "[unit][control]") {
  CHECK(routed_source("127.0.0.1") == "127.0.0.1");
  CHECK(routed_source("no-such-host.invalid").empty());
  CHECK(interface_holding("127.0.0.1") == "lo");
  CHECK(interface_holding("192.0.2.77").empty());
  CHECK(is_loopback_address("127.0.0.2"));
  CHECK(is_loopback_address("::1"));
  CHECK_FALSE(is_loopback_address("10.0.2.15"));
  CHECK_FALSE(is_loopback_address("host-a"));
  // The loopback's route says nothing of which rail: the rule by family.
  CHECK_FALSE(client_gid_source("127.0.0.1", ""));
}

TEST_CASE("route source: a server's GID follows the address its client connected to", "[unit][control]") {
  const auto connected = server_gid_source("10.0.7.3", "10.0.7.2");
  REQUIRE(connected);
  CHECK(connected->address == "10.0.7.3");
  CHECK(connected->learnt_from == "the address the client connected to");
  CHECK_FALSE(connected->required);
  // Unknown (a launcher's channel) or loopback: the route to the client.
  CHECK_FALSE(server_gid_source("", ""));
  CHECK_FALSE(server_gid_source("127.0.0.1", "127.0.0.1"));
}

TEST_CASE("source ip: the control connection leaves from it", "[unit][control]") {
  auto [listener, port] = listen_on_loopback();
  auto accepted = std::async(std::launch::async, [&listener = listener] { return listener.accept(Milliseconds(2000)); });
  const ControlChannel client = connect_control("127.0.0.1", port, Milliseconds(2000), "127.0.0.2");
  const ControlChannel server = accepted.get();
  CHECK(server.peer_host() == "127.0.0.2");
  CHECK(client.local_host() == "127.0.0.2");
  CHECK(server.local_host() == "127.0.0.1");
  // A source of the other family can never reach the server: said at once.
  REQUIRE_THROWS_MATCHES(connect_control("::1", port, Milliseconds(2000), "127.0.0.1"), Error,
                         MessageContains("--source-ip 127.0.0.1 cannot reach server ::1: they are of different "
                                         "address families"));
}
