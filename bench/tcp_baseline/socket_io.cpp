#include "tcp_baseline/socket_io.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::tcp {

namespace {

void wait_ready(int fd, short events, Milliseconds timeout, const char* what) {
  pollfd p{fd, events, 0};
  int rc;
  do rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  while (rc < 0 && errno == EINTR);
  if (rc == 0) throw Error(fmt::format("timed out after {} ms {}", timeout.count(), what));
  if (rc < 0) throw_system_error("poll", errno);
}

}  // namespace

void send_all(int fd, const void* data, std::size_t length, Milliseconds timeout) {
  auto* p = static_cast<const std::uint8_t*>(data);
  while (length > 0) {
    wait_ready(fd, POLLOUT, timeout, "sending to the peer");
    const ssize_t n = ::send(fd, p, length, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("send failed: {}", std::strerror(errno)), "the peer exited");
    p += n;
    length -= static_cast<std::size_t>(n);
  }
}

std::size_t receive_some(int fd, void* data, std::size_t length, Milliseconds timeout) {
  for (;;) {
    wait_ready(fd, POLLIN, timeout, "waiting for the peer");
    const ssize_t n = ::recv(fd, data, length, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("recv failed: {}", std::strerror(errno)), "the peer exited");
    return static_cast<std::size_t>(n);
  }
}

void receive_all(int fd, void* data, std::size_t length, Milliseconds timeout) {
  auto* p = static_cast<std::uint8_t*>(data);
  while (length > 0) {
    const std::size_t n = receive_some(fd, p, length, timeout);
    if (n == 0) throw Error("the peer closed the connection mid-message");
    p += n;
    length -= n;
  }
}

}  // namespace rdmabench::tcp
