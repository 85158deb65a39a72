// The control channel over a socketpair and over loopback TCP: message
// exchange, barriers, bounded waits, a closing or aborting peer, garbage on
// the wire, and connecting to a server that is late or absent.
//
// Every wait has a short timeout, and elapsed times are bounded generously
// only to catch hangs, never to measure speed.

#include "catch2_compat.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace std::chrono_literals;
using rdmabench::ControlChannel;
using rdmabench::ControlListener;
using rdmabench::Milliseconds;
using rdmabench::PeerState;
using rdmabench::test::MessageContains;
namespace wire = rdmabench::wire;
using Clock = std::chrono::steady_clock;

namespace {

constexpr Milliseconds kWait{2000};  // generous: only a broken test waits this long

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Writes bytes past the framing, as a broken or foreign peer would. No
/// Catch assertion inside: it also runs on helper threads.
bool write_raw(const ControlChannel& channel, const std::string& bytes) {
  return ::send(channel.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
         static_cast<ssize_t>(bytes.size());
}

/// A listener on a free port: the port is derived from our pid so that
/// parallel test runs rarely collide, and the next ones are tried if taken.
std::pair<ControlListener, std::uint16_t> listen_on_free_port() {
  const int base = 40000 + static_cast<int>(::getpid() % 20000);
  for (int attempt = 0; attempt < 50; ++attempt) {
    const auto port = static_cast<std::uint16_t>(base + attempt * 7);
    try {
      return {ControlListener(port), port};
    } catch (const rdmabench::Error&) {
      // taken; try the next
    }
  }
  FAIL("no free TCP port for the control listener");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("control: messages arrive whole and in order", "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  a.send(wire::Barrier{1});
  a.send(wire::Abort{"second"});
  a.send(wire::Barrier{3});
  CHECK(std::get<wire::Barrier>(b.receive(kWait)).sequence == 1);
  CHECK(std::get<wire::Abort>(b.receive(kWait)).reason == "second");
  CHECK(std::get<wire::Barrier>(b.receive(kWait)).sequence == 3);
}

TEST_CASE("control: exchange swaps endpoints between two threads", "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  wire::Endpoint ea, eb;
  ea.qp_number = 17;
  ea.memory = "host";
  eb.qp_number = 42;
  eb.memory = "hugepage";
  auto theirs_of_a = std::async(std::launch::async, [&, &a = a] {
    return a.exchange(ea, kWait, "endpoint");
  });
  const auto theirs_of_b = b.exchange(eb, kWait, "endpoint");
  CHECK(theirs_of_b == ea);
  CHECK(theirs_of_a.get() == eb);
}

TEST_CASE("control: barrier from two threads", "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  for (std::uint32_t sequence = 1; sequence <= 3; ++sequence) {
    auto other = std::async(std::launch::async, [&, &a = a] { a.barrier(sequence, kWait); });
    CHECK_NOTHROW(b.barrier(sequence, kWait));
    CHECK_NOTHROW(other.get());
  }
  // answer_barrier is the passive half: it only answers once the peer's arrived.
  auto passive = std::async(std::launch::async, [&, &a = a] { a.answer_barrier(9, kWait); });
  CHECK_NOTHROW(b.barrier(9, kWait));
  CHECK_NOTHROW(passive.get());
}

TEST_CASE("control: a barrier out of step is a protocol error", "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  a.send(wire::Barrier{2});
  REQUIRE_THROWS_MATCHES(b.barrier(1, kWait), rdmabench::Error,
                         MessageContains("is at barrier 2, this side at 1"));
}

TEST_CASE("control: receive_expected turns other messages into errors that quote the peer",
          "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  a.send(wire::Abort{"out of memory"});
  REQUIRE_THROWS_MATCHES(b.receive_expected<wire::Endpoint>(kWait, "endpoint"), rdmabench::Error,
                         MessageContains("gave up: out of memory"));
  a.send(wire::Reject{"mismatched --rdma-cm"});
  // The whole sentence: a peer's name already says "server host:port".
  REQUIRE_THROWS_WITH(b.receive_expected<wire::Endpoint>(kWait, "endpoint"),
                      b.peer_name() + " rejected this client: mismatched --rdma-cm");
  a.send(wire::Barrier{1});
  REQUIRE_THROWS_MATCHES(b.receive_expected<wire::Endpoint>(kWait, "the endpoint"),
                         rdmabench::Error,
                         MessageContains("expected the endpoint from " + b.peer_name() +
                                         ", received a barrier message"));
}

TEST_CASE("control: receive gives up after its timeout", "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  const auto start = Clock::now();
  REQUIRE_THROWS_MATCHES(b.receive(100ms), rdmabench::Error,
                         MessageContains("timed out after 100 ms"));
  const double elapsed = seconds_since(start);
  CHECK(elapsed >= 0.09);
  CHECK(elapsed < 5);
}

TEST_CASE("control: the timeout covers the whole message, not each read", "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  // A peer trickling one byte every 30 ms: each read succeeds in time, but
  // the whole 16-byte frame takes ~480 ms, well past the 150 ms allowed.
  const auto frame = wire::encode(wire::Barrier{1});
  auto trickle = std::async(std::launch::async, [&, &a = a] {
    bool all_written = true;
    for (auto byte : frame) {
      all_written = write_raw(a, std::string(1, static_cast<char>(byte))) && all_written;
      std::this_thread::sleep_for(30ms);
    }
    return all_written;
  });
  const auto start = Clock::now();
  REQUIRE_THROWS_MATCHES(b.receive(150ms), rdmabench::Error, MessageContains("timed out"));
  CHECK(seconds_since(start) < 5);
  CHECK(trickle.get());
}

TEST_CASE("control: a peer that closes is reported as closed", "[control]") {
  auto pair = std::make_optional(rdmabench::make_control_pair());
  ControlChannel b = std::move(pair->second);
  SECTION("before sending anything") {
    pair.reset();  // closes a
    REQUIRE_THROWS_MATCHES(b.receive(kWait), rdmabench::Error,
                           MessageContains(b.peer_name() + " closed the control connection"));
  }
  SECTION("in the middle of a frame") {
    const auto frame = wire::encode(wire::Barrier{1});
    REQUIRE(write_raw(pair->first, std::string(frame.begin(), frame.begin() + 5)));
    pair.reset();
    REQUIRE_THROWS_MATCHES(b.receive(kWait), rdmabench::Error,
                           MessageContains("closed the control connection"));
  }
  SECTION("and sending to it fails instead of raising SIGPIPE") {
    pair.reset();
    REQUIRE_THROWS_MATCHES(b.send(wire::Barrier{1}), rdmabench::Error,
                           MessageContains("lost the control connection"));
  }
}

TEST_CASE("control: check_peer sees a live, a closed and an aborting peer", "[control]") {
  auto pair = std::make_optional(rdmabench::make_control_pair());
  auto& a = pair->first;
  ControlChannel b = std::move(pair->second);
  std::string reason;

  SECTION("nothing pending: alive") {
    CHECK(b.check_peer(reason) == PeerState::alive);
    CHECK(reason.empty());
  }
  SECTION("a waiting Barrier: alive, and the Barrier stays for its receiver") {
    a.send(wire::Barrier{5});
    CHECK(b.check_peer(reason) == PeerState::alive);
    CHECK(b.check_peer(reason) == PeerState::alive);
    CHECK(std::get<wire::Barrier>(b.receive(kWait)).sequence == 5);
  }
  SECTION("a partial header: alive (the rest may still come)") {
    REQUIRE(write_raw(a, "RDM"));
    CHECK(b.check_peer(reason) == PeerState::alive);
  }
  SECTION("an Abort: aborted with its reason, and the Abort is consumed") {
    a.send(wire::Abort{"completion error on the server"});
    CHECK(b.check_peer(reason) == PeerState::aborted);
    CHECK(reason == "completion error on the server");
    reason.clear();
    CHECK(b.check_peer(reason) == PeerState::alive);
  }
  SECTION("garbage: aborted, with the reason saying why") {
    REQUIRE(write_raw(a, "GET / HTTP/1.0\r\n\r\n"));
    CHECK(b.check_peer(reason) == PeerState::aborted);
    CHECK_THAT(reason, Catch::Contains("bad magic"));
  }
  SECTION("closed") {
    pair.reset();
    CHECK(b.check_peer(reason) == PeerState::closed);
  }
}

TEST_CASE("control: garbage on the wire is rejected as not an rdmabench peer", "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  REQUIRE(write_raw(a, "GET / HTTP/1.0\r\n\r\n"));
  REQUIRE_THROWS_MATCHES(b.receive(kWait), rdmabench::Error,
                         MessageContains("not an rdmabench peer: bad magic"));
}

TEST_CASE("control: an oversized frame header is rejected before its payload is read",
          "[control]") {
  auto [a, b] = rdmabench::make_control_pair();
  // Header only: a receiver that trusted the length would wait for 4 GiB.
  REQUIRE(write_raw(a, std::string("RDMB\x00\x05\x00\x04\xff\xff\xff\xff", 12)));
  const auto start = Clock::now();
  REQUIRE_THROWS_MATCHES(b.receive(kWait), rdmabench::Error, MessageContains("exceeds"));
  CHECK(seconds_since(start) < 1);  // failed on the header, did not wait out kWait
}

TEST_CASE("control: TCP listener and client on loopback", "[control][tcp]") {
  auto [listener, port] = listen_on_free_port();
  CHECK(listener.port() == port);
  auto server_side = std::async(std::launch::async, [&, &listener = listener] {
    auto channel = listener.accept(kWait);
    channel.answer_barrier(1, kWait);
    return channel.peer_name();
  });
  auto client = rdmabench::connect_control("127.0.0.1", port, kWait);
  CHECK(client.peer_name() == "server 127.0.0.1:" + std::to_string(port));
  client.barrier(1, kWait);
  const auto client_name = server_side.get();
  // An IPv4 client on the dual-stack listener is named as plain IPv4.
  CHECK_THAT(client_name, Catch::StartsWith("client 127.0.0.1:"));
}

TEST_CASE("control: a second listener on the same port fails, naming the port", "[control][tcp]") {
  auto [listener, port] = listen_on_free_port();
  REQUIRE_THROWS_MATCHES(ControlListener(port), rdmabench::Error,
                         MessageContains("cannot listen on TCP port " + std::to_string(port)));
}

TEST_CASE("control: accept gives up after its timeout", "[control][tcp]") {
  auto [listener, port] = listen_on_free_port();
  const auto start = Clock::now();
  REQUIRE_THROWS_MATCHES(listener.accept(100ms), rdmabench::Error,
                         MessageContains("no client connected within 100 ms"));
  CHECK(seconds_since(start) < 5);
}

TEST_CASE("control: connecting to a port with no listener fails within the timeout",
          "[control][tcp]") {
  std::uint16_t port = 0;
  {
    auto [listener, free_port] = listen_on_free_port();
    port = free_port;
  }  // closed again: nobody listens there now
  const auto start = Clock::now();
  REQUIRE_THROWS_MATCHES(rdmabench::connect_control("127.0.0.1", port, 500ms), rdmabench::Error,
                         MessageContains("cannot reach server 127.0.0.1:" + std::to_string(port) +
                                         " within 500 ms"));
  CHECK(seconds_since(start) < 5);
}

TEST_CASE("control: a client started before its server still connects", "[control][tcp]") {
  std::uint16_t port = 0;
  {
    auto [listener, free_port] = listen_on_free_port();
    port = free_port;
  }
  // The server appears 300 ms after the client began trying.
  auto server = std::async(std::launch::async, [port] {
    std::this_thread::sleep_for(300ms);
    ControlListener listener(port);
    auto channel = listener.accept(kWait);
    return std::get<wire::Barrier>(channel.receive(kWait)).sequence;
  });
  auto client = rdmabench::connect_control("127.0.0.1", port, 3000ms);
  client.send(wire::Barrier{77});
  CHECK(server.get() == 77);
}

// A peer that sends its Abort and exits at once (the usual way to give up)
// must not lose its reason to the hang-up that follows.
TEST_CASE("control: check_peer keeps the reason of a peer that aborted and exited",
          "[control]") {
  auto pair = std::make_optional(rdmabench::make_control_pair());
  ControlChannel b = std::move(pair->second);
  pair->first.try_abort("server failed: completion error");
  pair.reset();
  std::string reason;
  CHECK(b.check_peer(reason) == PeerState::aborted);
  CHECK(reason == "server failed: completion error");
}
