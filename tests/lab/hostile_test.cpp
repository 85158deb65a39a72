// An untrusted peer: a well-formed hello with values no command line allows,
// a second client during a run, a client on an address the server does not
// listen on, a run too big for memory. Each is refused with a message that
// names what was wrong, and a server goes on serving.
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <thread>
#include <vector>

#include "faults.hpp"
#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

/// The server still serves: a correct client of `binary` runs, and then the
/// server exits 0 as after any completed run.
void expect_served(const std::string& binary, const Device& d, int port, Process& server,
                   const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv{bin(binary), "-d", d.name, "-p", std::to_string(port), "-n", "100"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(d.address);
  Process client(argv);
  INFO("client: " << client.describe());
  CHECK(client.wait_for(60s) == 0);
  CHECK(server.wait_for(10s) == 0);
}

/// A write_bw client's spec, spoiled by `spoil`.
rdmabench::TestSpec hostile(const std::function<void(rdmabench::TestSpec&)>& spoil) {
  rdmabench::TestSpec s;
  s.operation = rdmabench::Operation::write;
  s.measurement = rdmabench::Measurement::bandwidth;
  spoil(s);
  return s;
}

}  // namespace

TEST_CASE("hostile hellos are refused naming the field, and the server then serves a client",
          "[sanitizer][lab][hostile]") {
  const auto d = roce();
  const int port = free_port_pair();
  auto server = start_server({bin("rdma_write_bw"), "-d", d.name, "-p", std::to_string(port)});
  INFO("server: " << server->describe());
  using Spec = rdmabench::TestSpec;
  const struct {
    std::function<void(Spec&)> spoil;
    std::string expected;
  } cases[] = {
      {[](Spec& s) { s.iterations = 0; }, "-n/--iters 0 is out of range: expected 1 to 1000000000"},
      {[](Spec& s) { s.iterations = 1'000'000'000'000; }, "-n/--iters 1000000000000 is out of range"},
      {[](Spec& s) { s.iterations = std::numeric_limits<std::uint64_t>::max(); },
       "-n/--iters 18446744073709551615 is out of range"},
      {[](Spec& s) { s.warmup = std::numeric_limits<std::uint32_t>::max(); },
       "--warmup 4294967295 is out of range"},
      {[](Spec& s) { s.tx_depth = 0; }, "-t/--tx-depth 0 is out of range"},
      {[](Spec& s) { s.tx_depth = 1u << 20; }, "-t/--tx-depth 1048576 is out of range"},
      {[](Spec& s) { s.rx_depth = 1u << 20; }, "-r/--rx-depth 1048576 is out of range"},
      {[](Spec& s) { s.sizes = {0}; }, "-s/--size 0 is out of range"},
      {[](Spec& s) { s.sizes = {std::uint64_t{1} << 40}; }, "-s/--size 1099511627776 is out of range"},
      {[](Spec& s) { s.duration_s = 1'000'000'000; }, "-D/--duration 1000000000 is out of range"},
      {[](Spec& s) { s.queue_pairs = 1u << 20; }, "-q/--qp 1048576 is out of range"},
  };
  for (const auto& c : cases) {
    INFO("expected: " << c.expected);
    const std::string answer = answer_to_hello(port, hostile(c.spoil));
    CHECK_THAT(answer, Catch::Contains(c.expected));
    CHECK(server->running());
  }
  // The server's own notices are rate-limited: the first few, then a count.
  CHECK_THAT(server->err(), Catch::Contains("-n/--iters 0 is out of range"));
  CHECK_THAT(server->err(), !Catch::Contains("-s/--size 1099511627776 is out of range"));
  expect_served("rdma_write_bw", d, port, *server);
  CHECK_THAT(server->err(), Catch::Contains(std::to_string(std::size(cases) - 5) +
                                            " more clients turned away and not shown (at most 5 such lines per 60 s)"));
}

TEST_CASE("a hello within range that this device cannot carry is refused naming the limit and the server serves on",
          "[sanitizer][lab][hostile]") {
  const auto d = roce();
  // The attribute exchange, and rdma_cm (-R), where the server screens
  // against the device -d named although rdma_cm opens its own per run.
  const bool rdma_cm = GENERATE(false, true);
  const std::vector<std::string> method = rdma_cm ? std::vector<std::string>{"-R"} : std::vector<std::string>{};
  const int port = free_port_pair();
  std::vector<std::string> argv{bin("rdma_write_bw"), "-d", d.name, "-p", std::to_string(port)};
  argv.insert(argv.end(), method.begin(), method.end());
  auto server = start_server(argv);
  INFO("server: " << server->describe());
  // In range for any command line, beyond the device: 1024 QPs of 65536
  // sends need about 67 million CQ entries in one CQ.
  const std::string answer = answer_to_hello(port, hostile([&](rdmabench::TestSpec& s) {
    s.queue_pairs = 1024;
    s.tx_depth = 65536;
    if (rdma_cm) s.connect = rdmabench::ConnectMethod::rdma_cm;
  }));
  CHECK_THAT(answer, Catch::Contains("server side: -q/--qp 1024 with -t/--tx-depth 65536 needs 67,108,865 completion "
                                     "entries in one CQ (QPs x depth + 1); " + d.name + " allows"));
  CHECK(server->running());
  expect_served("rdma_write_bw", d, port, *server, method);
}

TEST_CASE("a client that leaves after its hello was accepted ends only its own run", "[sanitizer][lab][hostile]") {
  const auto d = roce();
  const int port = free_port_pair();
  auto server = start_server({bin("rdma_write_bw"), "-d", d.name, "-p", std::to_string(port), "--timeout", "2"});
  INFO("server: " << server->describe());
  // Accepted (Barrier 0), then gone before its endpoint: the server's run
  // for it fails, and the server goes back to waiting.
  (void)answer_to_hello(port, hostile([](rdmabench::TestSpec&) {}));
  CHECK(server->wait_for_output("failed", 15s));
  CHECK(server->running());
  expect_served("rdma_write_bw", d, port, *server);
}

namespace {

/// An endpoint as a client on the lab's RoCEv2 IPv4 address would send,
/// with the MTU it announces.
rdmabench::wire::Endpoint endpoint_announcing(std::uint32_t mtu_bytes) {
  rdmabench::wire::Endpoint e;
  e.qp_number = 0x123;
  e.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 15};  // ::ffff:10.0.2.15
  e.mtu_bytes = mtu_bytes;
  e.rkey = 1;
  e.address = 0x1000;
  e.length = 1 << 20;
  e.memory = "host";
  return e;
}

}  // namespace

TEST_CASE("a valid hello and then a bad endpoint, main or load, ends that run alone, naming the MTU",
          "[sanitizer][lab][hostile]") {
  const auto d = roce();
  // write_bw's one endpoint; write_lat with a load QP: a good main
  // endpoint, then the load's, which announces the bad MTU.
  const bool load = GENERATE(false, true);
  const std::string binary = load ? "rdma_write_lat" : "rdma_write_bw";
  const int port = free_port_pair();
  auto server = start_server({bin(binary), "-d", d.name, "-p", std::to_string(port), "--timeout", "3"});
  INFO("server: " << server->describe());
  auto spec = hostile([](rdmabench::TestSpec&) {});
  std::vector<rdmabench::wire::Message> endpoints{endpoint_announcing(load ? 1024 : 3000)};
  if (load) {
    spec.measurement = rdmabench::Measurement::latency;
    spec.load_queue_pairs = 1;
    endpoints.push_back(endpoint_announcing(3000));
  }
  const std::string answer = answer_to_hello_then(port, spec, endpoints);
  CHECK_THAT(answer, Catch::Contains("the peer announces an MTU of 3000 bytes"));
  CHECK(server->wait_for_output("failed", 15s));
  CHECK(server->running());
  expect_served(binary, d, port, *server);
}

TEST_CASE("a client whose queues its own device cannot hold says so before connecting", "[sanitizer][lab][hostile]") {
  const auto d = roce();
  // With -R too: the device -d names is checked before rdma_cm is asked.
  const bool rdma_cm = GENERATE(false, true);
  std::vector<std::string> argv{bin("rdma_write_bw"), "-d", d.name, "-q", "1024", "-t", "65536", "-p",
                                std::to_string(free_port_pair())};
  if (rdma_cm) argv.push_back("-R");
  argv.push_back("127.0.0.1");
  Process client(argv);
  INFO("client: " << client.describe());
  CHECK(client.wait_for(20s) == 1);
  CHECK_THAT(client.err(), Catch::Contains("-q/--qp 1024 with -t/--tx-depth 65536 needs 67,108,865 completion "
                                           "entries in one CQ (QPs x depth + 1); " + d.name + " allows"));
  CHECK_THAT(client.err(), !Catch::Contains("cannot reach server"));
  CHECK_THAT(client.err(), !Catch::Contains("rdma_resolve"));
}

TEST_CASE("a client that connects and says nothing is turned away after the hello deadline",
          "[sanitizer][lab][hostile]") {
  const auto d = roce();
  const int port = free_port_pair();
  auto server = start_server({bin("rdma_write_lat"), "-d", d.name, "-p", std::to_string(port)});
  INFO("server: " << server->describe());
  const int fd = connect_loopback(port);
  CHECK(server->wait_for_output("still waiting for a client", 8s));  // 3 s deadline, not --timeout
  ::close(fd);
  expect_served("rdma_write_lat", d, port, *server);
}

TEST_CASE("silent connections ahead of a client do not keep it out", "[sanitizer][lab][hostile]") {
  const auto d = roce();
  // Silent, or trickling: one byte of a hello and then nothing (a blocking
  // read of the rest held the server for the hello deadline each time).
  const bool trickle = GENERATE(false, true);
  INFO((trickle ? "one byte each" : "silent"));
  const int port = free_port_pair();
  auto server = start_server({bin("rdma_write_lat"), "-d", d.name, "-p", std::to_string(port)});
  INFO("server: " << server->describe());
  // Five connections that never say hello, ahead of the client. Screened one
  // after the other, their 3 s deadlines kept it waiting 15 s, past its
  // default --timeout (10 s).
  std::vector<int> silent;
  for (int i = 0; i < 5; ++i) {
    silent.push_back(connect_loopback(port));
    if (trickle) REQUIRE(::send(silent.back(), "R", 1, MSG_NOSIGNAL) == 1);
  }
  expect_served("rdma_write_lat", d, port, *server);
  for (const int fd : silent) ::close(fd);
}

TEST_CASE("a second client during a run is refused, naming the run's client", "[sanitizer][lab][hostile]") {
  const auto d = roce();
  auto p = start_pair("rdma_write_bw", {"-d", d.name}, d.address,
                      {"-d", d.name, "-n", "10000000", "-s", "2"});
  INFO("server: " << p.server->describe());
  REQUIRE(p.client->wait_for_output("#bytes", 30s));
  Process second({bin("rdma_write_bw"), "-d", d.name, "-p", std::to_string(p.port), "-n", "10", d.address});
  INFO("second: " << second.describe());
  CHECK(second.wait_for(20s) == 1);
  CHECK_THAT(second.err(), Catch::Contains("the server is busy with a run for client"));
  CHECK(p.client->running());
  p.client->kill(SIGKILL);
}

TEST_CASE("a server given --bind listens on that address alone", "[sanitizer][lab][hostile]") {
  const auto d = roce();
  const int port = free_port_pair();
  auto server = start_server({bin("rdma_write_lat"), "-d", d.name, "-p", std::to_string(port),
                              "--bind", d.address});
  INFO("server: " << server->describe());
  Process elsewhere({bin("rdma_write_lat"), "-d", d.name, "-p", std::to_string(port), "--timeout", "2",
                     "127.0.0.1"});
  CHECK(elsewhere.wait_for(20s) == 1);
  CHECK_THAT(elsewhere.err(), Catch::Contains("cannot reach server 127.0.0.1"));
  expect_served("rdma_write_lat", d, port, *server);
}

TEST_CASE("a latency run whose samples cannot fit is refused before connecting, naming -D",
          "[sanitizer][lab][hostile]") {
  // The lab guest has 2 GiB; keeping 10^9 samples needs about 22 GiB.
  Process client({bin("rdma_write_lat"), "-d", roce().name, "-n", "1000000000", "-p",
                  std::to_string(free_port_pair()), "127.0.0.1"});
  INFO(client.describe());
  CHECK(client.wait_for(20s) == 1);
  CHECK_THAT(client.err(), Catch::Contains("this run needs 22.4 GiB of memory"));
  CHECK_THAT(client.err(), Catch::Contains("give -D SECONDS"));
}
