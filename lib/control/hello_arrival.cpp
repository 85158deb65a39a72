#include "control/hello_arrival.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstdint>

#include "rdmabench/control/wire.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

namespace {

/// Sets SO_RCVLOWAT to `bytes`; whether the kernel took all of it. (Linux
/// grows the receive buffer to hold it, up to tcp_rmem's maximum; an older
/// kernel caps it at half the buffer, and then the read waits instead,
/// bounded by the hello deadline.)
bool wake_at(int fd, std::size_t bytes) {
  const int value = static_cast<int>(bytes);
  int taken = 0;
  socklen_t size = sizeof taken;
  return ::setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &value, sizeof value) == 0 &&
         ::getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &taken, &size) == 0 && taken >= value;
}

/// The peer closed (or half-closed) its side: nothing more will come.
bool peer_closed(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

}  // namespace

bool first_frame_arrived(int fd) {
  if (peer_closed(fd)) {  // a part of a hello and then a close: refused at once
    (void)wake_at(fd, 1);
    return true;
  }
  std::array<std::uint8_t, wire::kHeaderSize> header{};
  const ssize_t peeked = ::recv(fd, header.data(), header.size(), MSG_PEEK | MSG_DONTWAIT);
  if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  std::size_t needed = wire::kHeaderSize;
  bool arrived = peeked <= 0;  // closed or failed: the read says which, at once
  if (!arrived && static_cast<std::size_t>(peeked) == header.size()) {
    try {
      needed += wire::decode_header(header).payload_length;
    } catch (const Error&) {
      arrived = true;  // not our header: refused at once, naming what was wrong
    }
  }
  int queued = 0;
  if (!arrived &&
      (::ioctl(fd, FIONREAD, &queued) != 0 || static_cast<std::size_t>(queued) >= needed))
    arrived = true;
  if (!arrived && wake_at(fd, needed)) return false;
  (void)wake_at(fd, 1);
  return true;
}

}  // namespace rdmabench::detail
