// Bad input and misbehaving peers: each ends with a message that names what
// was wrong, a non-zero exit, and never a hang.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

/// Sends `bytes` to 127.0.0.1:port on a raw TCP connection, then closes it.
void send_raw(int port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::send(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()));
  char reply[256];
  (void)::recv(fd, reply, sizeof reply, 0);  // the server's Abort, or EOF
  ::close(fd);
}

/// Kills `victim` once the run is under way; the survivor must exit
/// non-zero with `expected` in its stderr within its --timeout plus slack.
void kill_mid_run(const std::string& binary, const Device& d, bool kill_server) {
  auto p = start_pair(binary, {"-d", d.name}, d.address,
                      {"-d", d.name, "-n", "10000000", "--timeout", "3"});
  INFO("client: " << p.client->describe());
  INFO("server: " << p.server->describe());
  // The table header is printed once the handshake is done and loops start.
  REQUIRE(p.client->wait_for_output("#bytes", 30s));
  std::this_thread::sleep_for(500ms);
  Process& victim = kill_server ? *p.server : *p.client;
  Process& survivor = kill_server ? *p.client : *p.server;
  REQUIRE(survivor.running());
  victim.kill(SIGKILL);
  const auto start = std::chrono::steady_clock::now();
  const auto rc = survivor.wait_for(20s);
  INFO("survivor took " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s");
  REQUIRE(rc.has_value());
  CHECK(*rc != 0);
  CHECK_THAT(survivor.err(), Catch::Contains("error:"));
  // However the verbs layer reports it (a hung QP on rxe, a failed post on
  // siw), the message leads with the cause: the peer's process is gone.
  CHECK_THAT(survivor.err(), Catch::Contains("closed the control connection"));
}

/// Server `server` (binary, then options) and client `client` disagree: the
/// client must exit 1 and both say `expected`; the server keeps serving, and
/// then runs a client that agrees with it.
void expect_refused_on_both_sides(const Args& server, const Args& client, const std::string& expected) {
  const auto d = roce();
  const auto port = std::to_string(free_port_pair());
  Args server_argv{bin(server[0]), "-d", d.name, "-p", port};
  server_argv.insert(server_argv.end(), server.begin() + 1, server.end());
  auto server_process = start_server(server_argv);
  Process& s = *server_process;
  Args client_argv{bin(client[0]), "-d", d.name, "-p", port};
  client_argv.insert(client_argv.end(), client.begin() + 1, client.end());
  client_argv.push_back(d.address);
  Process c(client_argv);
  INFO("client: " << c.describe());
  INFO("server: " << s.describe());
  CHECK(c.wait_for(30s) == 1);
  CHECK_THAT(c.err(), Catch::Contains(expected));
  REQUIRE(s.wait_for_output("still waiting for a client", 10s));
  CHECK_THAT(s.err(), Catch::Contains(expected));
  CHECK(s.running());
  Args good{bin(server[0]), "-d", d.name, "-p", port, "-n", "50"};
  good.insert(good.end(), server.begin() + 1, server.end());
  good.push_back(d.address);
  Process g(good);
  INFO("agreeing client: " << g.describe());
  CHECK(g.wait_for(60s) == 0);
  CHECK(s.wait_for(10s) == 0);
}

}  // namespace

TEST_CASE("unknown device lists the devices that exist", "[sanitizer][lab][errors]") {
  auto p = run_alone({bin("rdma_write_bw"), "-d", "nosuch9", "-p", std::to_string(free_port_pair())});
  INFO(p->describe());
  CHECK(p->wait_for(0ms) == 1);
  CHECK_THAT(p->err(), Catch::Contains("unknown RDMA device 'nosuch9'; available:"));
  CHECK_THAT(p->err(), Catch::Contains(roce().name));
}

TEST_CASE("invalid GID index names the valid ones", "[sanitizer][lab][errors]") {
  auto p = run_alone({bin("rdma_write_lat"), "-d", roce().name, "-x", "9", "-p",
                      std::to_string(free_port_pair())});
  INFO(p->describe());
  CHECK(p->wait_for(0ms) == 1);
  CHECK_THAT(p->err(), Catch::Contains("GID index 9 does not exist on " + roce().name + " port 1; valid: 0"));
}

TEST_CASE("size 0 is a usage error", "[sanitizer][lab][errors]") {
  auto p = run_alone({bin("rdma_write_bw"), "-d", roce().name, "-s", "0", "127.0.0.1"});
  INFO(p->describe());
  CHECK(p->wait_for(0ms) == 2);
  CHECK_THAT(p->err(), Catch::Contains("-s/--size 0 is invalid"));
}

TEST_CASE("size above what the device can carry is refused before connecting", "[sanitizer][lab][errors]") {
  // 4095 MiB fits the protocol's 32-bit message length but exceeds rxe's
  // max_msg_sz (2 GiB); nothing listens on the port, so reaching the network
  // would be a different error.
  auto p = run_alone({bin("rdma_write_bw"), "-d", roce().name, "-s", "4095M", "-p",
                      std::to_string(free_port_pair()), "127.0.0.1"});
  INFO(p->describe());
  CHECK(p->wait_for(0ms) == 1);
  CHECK_THAT(p->err(), Catch::Contains("message size 4293918720 exceeds the largest message"));
}

TEST_CASE("client with no server gives up within --timeout", "[sanitizer][lab][errors]") {
  const auto start = std::chrono::steady_clock::now();
  auto p = run_alone({bin("rdma_write_lat"), "-d", roce().name, "--timeout", "2", "-p",
                      std::to_string(free_port_pair()), "127.0.0.1"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(p->describe());
  CHECK(p->wait_for(0ms) == 1);
  CHECK_THAT(p->err(), Catch::Contains("cannot reach server 127.0.0.1"));
  CHECK(seconds >= 1.5);   // it retried for the whole timeout...
  CHECK(seconds < 15.0);   // ...and then stopped
}

TEST_CASE("garbage on the control port is rejected and the server keeps serving", "[sanitizer][lab][errors]") {
  const auto d = roce();
  const int port = free_port_pair();
  auto server_process = start_server({bin("rdma_write_lat"), "-d", d.name, "-p", std::to_string(port)});
  Process& server = *server_process;
  INFO("server: " << server.describe());
  send_raw(port, "GET / HTTP/1.0\r\n\r\n");
  REQUIRE(server.wait_for_output("rejected", 10s));
  CHECK_THAT(server.err(), Catch::Contains("bad magic"));
  CHECK(server.running());
  // A short frame followed by a hang-up must not wedge it either.
  send_raw(port, std::string("RDMB\0\x01", 6));
  std::this_thread::sleep_for(300ms);
  CHECK(server.running());

  Process client({bin("rdma_write_lat"), "-d", d.name, "-p", std::to_string(port), "-n", "50", d.address});
  INFO("client: " << client.describe());
  CHECK(client.wait_for(60s) == 0);
  CHECK(server.wait_for(10s) == 0);
}

TEST_CASE("mismatched binaries are refused on both sides, naming the test", "[sanitizer][lab][errors]") {
  expect_refused_on_both_sides({"rdma_write_bw"}, {"rdma_write_lat"},
                               "mismatched test: the server runs rdma_write_bw, the client rdma_write_lat");
}

TEST_CASE("rdma_cm on one side only is refused, naming --rdma-cm", "[sanitizer][lab][errors]") {
  expect_refused_on_both_sides({"rdma_write_lat", "-R"}, {"rdma_write_lat"}, "mismatched --rdma-cm");
}

TEST_CASE("server killed mid-run: the bandwidth client notices", "[sanitizer][lab][errors][kill]") {
  kill_mid_run("rdma_write_bw", roce(), true);
}
TEST_CASE("client killed mid-run: the bandwidth server notices", "[lab][errors][kill]") {
  kill_mid_run("rdma_write_bw", roce(), false);
}
TEST_CASE("server killed mid-run: the latency client notices", "[lab][errors][kill]") {
  kill_mid_run("rdma_write_lat", roce(), true);
}
TEST_CASE("client killed mid-run: the latency server notices", "[sanitizer][lab][errors][kill]") {
  kill_mid_run("rdma_write_lat", roce(), false);
}
TEST_CASE("server killed mid-run on iWARP: the client notices", "[sanitizer][lab][errors][kill]") {
  kill_mid_run("rdma_write_bw", iwarp(), true);
}
TEST_CASE("server killed mid-run: the read latency client notices", "[lab][errors][kill][read]") {
  kill_mid_run("rdma_read_lat", roce(), true);
}
TEST_CASE("client killed mid-run: the read bandwidth server notices", "[lab][errors][kill][read]") {
  kill_mid_run("rdma_read_bw", iwarp(), false);
}
TEST_CASE("server killed mid-run: the send bandwidth client notices", "[lab][errors][kill][send]") {
  kill_mid_run("rdma_send_bw", roce(), true);
}
TEST_CASE("client killed mid-run: the send latency server notices", "[lab][errors][kill][send]") {
  kill_mid_run("rdma_send_lat", iwarp(), false);
}

TEST_CASE("atomics on iWARP are refused before connecting, from the device's capabilities",
          "[sanitizer][lab][errors][atomic]") {
  const auto d = iwarp();
  for (const bool server : {true, false}) {
    INFO((server ? "server" : "client"));
    Args argv{bin("rdma_atomic_lat"), "-d", d.name, "-p", std::to_string(free_port_pair())};
    if (!server) argv.push_back(d.address);  // nothing listens: reaching it would be another error
    auto p = run_alone(argv);
    INFO(p->describe());
    CHECK(p->wait_for(0ms) == 1);
    CHECK_THAT(p->err(), Catch::Contains(d.name + " cannot run atomics: its atomic_cap is ATOMIC_NONE"));
    CHECK(p->err().find("cannot reach") == std::string::npos);
  }
}

TEST_CASE("validate catches a corrupted byte and names it, on both sides", "[sanitizer][lab][errors][validate]") {
  // The data side (client for writes, server for reads) flips one byte.
  for (const bool read : {false, true}) {
    const auto d = read ? iwarp() : roce();
    const std::string binary = read ? "rdma_read_lat" : "rdma_write_bw";
    INFO(binary << " on " << d.name);
    const auto port = std::to_string(free_port_pair());
    if (read) ::setenv("RDMABENCH_FAULT_CORRUPT_VALIDATION", "1", 1);
    auto server_process = start_server({bin(binary), "-d", d.name, "-p", port, "--validate"});
    Process& server = *server_process;
    ::unsetenv("RDMABENCH_FAULT_CORRUPT_VALIDATION");
    if (!read) ::setenv("RDMABENCH_FAULT_CORRUPT_VALIDATION", "1", 1);
    Process client({bin(binary), "-d", d.name, "-p", port, "--validate", "-s", "4096", "-n", "10", d.address});
    ::unsetenv("RDMABENCH_FAULT_CORRUPT_VALIDATION");
    INFO("client: " << client.describe());
    INFO("server: " << server.describe());
    CHECK(client.wait_for(60s) == 1);
    CHECK(server.wait_for(60s) == 1);
    const std::string expected = "--validate: byte 2048 of the 4096-byte message of pass 0";
    CHECK_THAT(client.err(), Catch::Contains(expected));
    CHECK_THAT(server.err(), Catch::Contains(expected));
  }
}
