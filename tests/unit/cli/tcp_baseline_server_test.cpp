// tcp_baseline's server on loopback: data connections only from the
// control connection's host (127.0.0.2 stands in for a stranger: the whole
// of 127/8 is this host), and --bind listens on its address alone.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "catch2_compat.hpp"
#include "rdmabench/verbs/error.hpp"
#include "tcp_baseline/session_protocol.hpp"
#include "tcp_baseline/tcp_options.hpp"
#include "tcp_baseline/tcp_roles.hpp"

namespace {

sockaddr_in loopback_address(const char* ip, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

/// A TCP connection from `source` (port chosen by the kernel) to `to`, or
/// -1 with errno set.
int connect_from(const char* source, const char* to, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const auto from = loopback_address(source, 0);
  const auto target = loopback_address(to, port);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

/// A port nothing listens on now (the kernel's pick).
std::uint16_t unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto a = loopback_address("127.0.0.1", 0);
  socklen_t length = sizeof a;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

TEST_CASE("tcp_baseline's server refuses a stranger's data connection and listens on --bind alone",
          "[tcp]") {
  using namespace rdmabench::tcp;
  Options o;
  o.port = unused_port();
  o.bind_address = "127.0.0.1";
  o.timeout = rdmabench::Milliseconds(5000);
  int status = -1;
  std::string failure;
  std::thread server([&] {
    try {
      status = serve(o);
    } catch (const rdmabench::Error& e) {
      failure = e.what();
    }
  });
  int control = -1;
  for (int i = 0; i < 200 && control < 0; ++i) {
    control = connect_from("127.0.0.1", "127.0.0.1", o.port);
    if (control < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(control >= 0);
  // --bind 127.0.0.1: another of this host's addresses finds nobody.
  CHECK(connect_from("127.0.0.2", "127.0.0.2", o.port) == -1);
  CHECK(errno == ECONNREFUSED);

  constexpr std::uint64_t kSize = 8, kRoundTrips = 3;
  send_header(control, Header{static_cast<std::uint32_t>(Test::pingpong), 1, kSize, kRoundTrips},
              o.timeout);
  const int stranger = connect_from("127.0.0.2", "127.0.0.1", o.port);  // first in the queue
  REQUIRE(stranger >= 0);
  const int data = connect_from("127.0.0.1", "127.0.0.1", o.port);
  REQUIRE(data >= 0);
  std::array<char, kSize> message{};
  for (std::uint64_t i = 0; i < kRoundTrips; ++i) {
    REQUIRE(::send(data, message.data(), message.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(kSize));
    REQUIRE(::recv(data, message.data(), message.size(), MSG_WAITALL) ==
            static_cast<ssize_t>(kSize));
  }
  const Summary summary = receive_summary(control, o.timeout);
  server.join();
  CHECK(failure.empty());
  CHECK(status == 0);
  CHECK(summary.bytes == 2 * kSize * kRoundTrips);  // each way
  char byte = 0;
  CHECK(::recv(stranger, &byte, 1, 0) == 0);  // closed unanswered
  for (const int fd : {control, stranger, data}) ::close(fd);
}
