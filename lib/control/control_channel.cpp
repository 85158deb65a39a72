#include "rdmabench/control/control_channel.hpp"

#include "control/address.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace rdmabench {

using Clock = std::chrono::steady_clock;

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

/// poll() for `events` until the deadline; false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<Milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) throw_system_error("poll", errno);
  }
}

std::string describe_peer(const sockaddr_storage& addr) {
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), sizeof(addr), host, sizeof host,
                    port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "unknown peer";
  std::string h = host;
  if (h.rfind("::ffff:", 0) == 0 && h.find('.') != std::string::npos) h = h.substr(7);  // v4-mapped
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  return fmt::format("{}:{}", h, port);
}

void set_nodelay(int fd) {
  int one = 1;
  // Control messages are small and latency-bound; never batch them.
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/// Connects without blocking past `deadline` (an unroutable address would
/// otherwise hang for minutes); returns 0 or the errno of the failure.
int connect_before(int fd, const addrinfo& address, Clock::time_point deadline) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int err = 0;
  if (::connect(fd, address.ai_addr, address.ai_addrlen) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      err = ETIMEDOUT;
      if (wait_for(fd, POLLOUT, deadline)) {
        socklen_t length = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &length);
      }
    }
  }
  ::fcntl(fd, F_SETFL, flags);
  return err;
}

}  // namespace

ControlChannel::ControlChannel(FileDescriptor socket, std::string peer_name)
    : socket_(std::move(socket)), peer_name_(std::move(peer_name)) {}

void ControlChannel::send(const wire::Message& message) {
  const auto bytes = wire::encode(message);
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(socket_.get(), bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw Error(fmt::format("lost the control connection to {} while sending: {}", peer_name_,
                              std::strerror(errno)),
                  "the peer exited or the network failed");
    sent += static_cast<std::size_t>(n);
  }
}

void ControlChannel::read_exactly(std::uint8_t* data, std::size_t length, Milliseconds timeout,
                                  Clock::time_point deadline) {
  std::size_t got = 0;
  while (got < length) {
    if (!wait_for(socket_.get(), POLLIN, deadline))
      throw Error(fmt::format("timed out after {} ms waiting for {}", timeout.count(), peer_name_),
                  "the peer is stuck or gone; raise --timeout if it is merely slow");
    const ssize_t n = ::recv(socket_.get(), data + got, length - got, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0)
      throw Error(fmt::format("control connection to {} failed: {}", peer_name_,
                              std::strerror(errno)));
    if (n == 0)
      throw Error(fmt::format("{} closed the control connection", peer_name_),
                  "the peer exited or crashed; see its output");
    got += static_cast<std::size_t>(n);
  }
}

wire::Message ControlChannel::receive(Milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::uint8_t header[wire::kHeaderSize];
  read_exactly(header, sizeof header, timeout, deadline);
  const auto frame = wire::decode_header(header);
  std::vector<std::uint8_t> payload(frame.payload_length);
  read_exactly(payload.data(), payload.size(), timeout, deadline);
  return wire::decode_payload(frame.type, payload);
}

void ControlChannel::barrier(std::uint32_t sequence, Milliseconds timeout) {
  send(wire::Barrier{sequence});
  await_barrier(sequence, timeout);
}

void ControlChannel::await_barrier(std::uint32_t sequence, Milliseconds timeout) {
  const auto theirs = receive_expected<wire::Barrier>(timeout, "barrier");
  require(theirs.sequence == sequence,
          fmt::format("protocol error: peer {} is at barrier {}, this side at {}", peer_name_,
                      theirs.sequence, sequence));
}

void ControlChannel::answer_barrier(std::uint32_t sequence, Milliseconds timeout) {
  await_barrier(sequence, timeout);
  send(wire::Barrier{sequence});
}

PeerState ControlChannel::check_peer(std::string& reason) {
  pollfd p{socket_.get(), POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return PeerState::alive;
  // Look at pending data before the hang-up: a peer that sends its Abort and
  // exits at once must still be heard.
  std::uint8_t header[wire::kHeaderSize];
  const ssize_t n = ::recv(socket_.get(), header, sizeof header, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return PeerState::closed;
  if (n < 0) return errno == EAGAIN || errno == EINTR ? PeerState::alive : PeerState::closed;
  // A peer that finished first may already wait at the next barrier: leave
  // such a message for the code that expects it. Only an Abort concerns us.
  if (n < static_cast<ssize_t>(sizeof header))
    return p.revents & (POLLHUP | POLLERR) ? PeerState::closed : PeerState::alive;
  try {
    if (wire::decode_header(header).type != wire::MessageType::abort) return PeerState::alive;
    const auto message = receive(Milliseconds(1000));
    reason = std::get<wire::Abort>(message).reason;
  } catch (const Error& e) {
    reason = e.what();
  }
  return PeerState::aborted;
}

bool ControlChannel::peer_has_spoken() const {
  pollfd p{socket_.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

void ControlChannel::try_abort(const std::string& reason) noexcept {
  try {
    send(wire::Abort{reason.substr(0, wire::kMaxText)});
  } catch (...) {
    // The peer may be the reason we abort; there is nobody left to tell.
  }
}

ControlChannel connect_control(const std::string& host, std::uint16_t port, Milliseconds timeout) {
  const auto addresses = detail::resolve_address(host, port);

  const auto deadline = Clock::now() + timeout;
  std::string last_error = "no address";
  for (;;) {
    for (auto* a = addresses.get(); a; a = a->ai_next) {
      FileDescriptor fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
      if (fd.get() < 0) throw_system_error("socket", errno);
      if (int err = connect_before(fd.get(), *a, deadline); err != 0) {
        last_error = std::strerror(err);
        continue;
      }
      set_nodelay(fd.get());
      return ControlChannel(std::move(fd), fmt::format("server {}:{}", host, port));
    }
    if (Clock::now() + Milliseconds(200) >= deadline) break;
    std::this_thread::sleep_for(Milliseconds(200));
  }
  throw Error(fmt::format("cannot reach server {}:{} within {} ms: {}", host, port,
                          timeout.count(), last_error),
              "is the server running, and is -p/--port the same on both sides?");
}

ControlListener::ControlListener(std::uint16_t port) : port_(port) {
  FileDescriptor fd(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw_system_error("socket", errno);
  int one = 1, zero = 0;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // Dual-stack: IPv4 clients arrive as v4-mapped addresses.
  ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_any;
  addr.sin6_port = htons(port);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw Error(fmt::format("cannot listen on TCP port {}: {}", port, std::strerror(errno)),
                "another server may hold it; choose another with -p/--port on both sides");
  if (::listen(fd.get(), 8) != 0) throw_system_error("listen", errno);
  socket_ = std::move(fd);
}

ControlChannel ControlListener::accept(Milliseconds timeout) {
  if (timeout.count() > 0 && !wait_for(socket_.get(), POLLIN, Clock::now() + timeout))
    throw Error(fmt::format("no client connected within {} ms", timeout.count()));
  sockaddr_storage peer{};
  socklen_t length = sizeof peer;
  FileDescriptor fd(
      ::accept4(socket_.get(), reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC));
  if (fd.get() < 0) throw_system_error("accept", errno);
  set_nodelay(fd.get());
  return ControlChannel(std::move(fd), "client " + describe_peer(peer));
}

std::pair<ControlChannel, ControlChannel> make_control_pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw_system_error("socketpair", errno);
  return {ControlChannel(FileDescriptor(fds[0]), "peer A"),
          ControlChannel(FileDescriptor(fds[1]), "peer B")};
}

}  // namespace rdmabench
