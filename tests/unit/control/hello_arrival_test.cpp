// The server reads a hello only once it has arrived whole: a client that
// trickles it waits beside the silent ones (lib/control/hello_arrival.cpp).
// Loopback TCP, since SO_RCVLOWAT's hold on poll() is TCP's.

#include "control/hello_arrival.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "catch2_compat.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/control/wire.hpp"

using rdmabench::detail::first_frame_arrived;

namespace {

/// Both ends of one loopback TCP connection (the server's end first).
struct LoopbackTcp {
  int server = -1, client = -1;
  LoopbackTcp() {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener, 1) == 0);
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    server = ::accept(listener, nullptr, nullptr);
    ::close(listener);
    REQUIRE(server >= 0);
  }
  ~LoopbackTcp() {
    ::close(server);
    ::close(client);
  }
  void send_bytes(const std::uint8_t* data, std::size_t n) const {
    REQUIRE(::send(client, data, n, 0) == static_cast<ssize_t>(n));
  }
  bool readable_now() const {
    pollfd p{server, POLLIN, 0};
    return ::poll(&p, 1, 50) == 1;
  }
};

}  // namespace

TEST_CASE("a hello trickled a few bytes at a time counts as arrived only when whole", "[control]") {
  rdmabench::TestSpec spec;
  const auto frame = rdmabench::wire::encode(rdmabench::wire::Hello{spec});
  REQUIRE(frame.size() > rdmabench::wire::kHeaderSize + 1);
  LoopbackTcp tcp;
  CHECK_FALSE(first_frame_arrived(tcp.server));  // nothing yet
  tcp.send_bytes(frame.data(), 1);
  REQUIRE(tcp.readable_now());                   // one byte wakes poll ...
  CHECK_FALSE(first_frame_arrived(tcp.server));  // ... but is no hello,
  CHECK_FALSE(tcp.readable_now());               // and poll now waits for the header
  tcp.send_bytes(frame.data() + 1, rdmabench::wire::kHeaderSize);
  REQUIRE(tcp.readable_now());
  CHECK_FALSE(first_frame_arrived(tcp.server));  // the header, not yet the payload
  CHECK_FALSE(tcp.readable_now());               // poll waits for the whole frame
  tcp.send_bytes(frame.data() + 1 + rdmabench::wire::kHeaderSize,
                 frame.size() - 1 - rdmabench::wire::kHeaderSize);
  REQUIRE(tcp.readable_now());
  CHECK(first_frame_arrived(tcp.server));
  int lowat = 0;
  socklen_t size = sizeof lowat;
  REQUIRE(::getsockopt(tcp.server, SOL_SOCKET, SO_RCVLOWAT, &lowat, &size) == 0);
  CHECK(lowat == 1);  // the control channel's later reads wake on any byte again
}

TEST_CASE("a first frame that is not ours, or a closed connection, is read at once", "[control]") {
  {
    LoopbackTcp tcp;
    const std::vector<std::uint8_t> garbage(rdmabench::wire::kHeaderSize, 0xff);
    tcp.send_bytes(garbage.data(), garbage.size());
    REQUIRE(tcp.readable_now());
    CHECK(first_frame_arrived(tcp.server));  // the read refuses it, naming the bad magic
  }
  {
    LoopbackTcp tcp;
    const std::uint8_t one = 'R';
    tcp.send_bytes(&one, 1);
    CHECK_FALSE(first_frame_arrived(tcp.server));
    ::shutdown(tcp.client, SHUT_WR);
    REQUIRE(tcp.readable_now());             // the close wakes poll whatever SO_RCVLOWAT says
    CHECK(first_frame_arrived(tcp.server));  // a part and a close: the read fails at once
  }
}
