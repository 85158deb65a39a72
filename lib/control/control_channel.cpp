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

/// The peer said nothing before the deadline (as opposed to a broken or
/// closed connection).
class ReadTimeout : public Error {
 public:
  using Error::Error;
};

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

/// Control messages are small and latency-bound: never batch them. And a
/// peer host that vanishes without a FIN or RST must break the connection
/// within `timeout`: keepalive probes an idle one, and TCP_USER_TIMEOUT
/// bounds how long sent data (a heartbeat) may stay unacknowledged.
void tune_control_socket(int fd, Milliseconds timeout) {
  const int one = 1;
  const int seconds = static_cast<int>(std::max<long long>(1, timeout.count() / 1000));
  const int probes = 3;
  const unsigned user_timeout_ms = static_cast<unsigned>(std::max<long long>(1000, timeout.count()));
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &seconds, sizeof seconds);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
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

/// The address `source` (numeric) in `family`'s form, port 0; false when
/// it is of the other family.
bool source_in(int family, const std::string& source, sockaddr_storage& address) {
  address = {};
  address.ss_family = static_cast<sa_family_t>(family);
  void* where = family == AF_INET6 ? static_cast<void*>(&reinterpret_cast<sockaddr_in6&>(address).sin6_addr)
                                   : static_cast<void*>(&reinterpret_cast<sockaddr_in&>(address).sin_addr);
  return ::inet_pton(family, source.c_str(), where) == 1;
}

/// A source of one family cannot reach a server of the other: said at once,
/// rather than after retrying until the timeout.
void require_family_of_source(const addrinfo* addresses, const std::string& host, const std::string& source) {
  sockaddr_storage unused;
  for (const addrinfo* a = addresses; a; a = a->ai_next)
    if (source_in(a->ai_family, source, unused)) return;
  throw Error(fmt::format("--source-ip {} cannot reach server {}: they are of different address families "
                          "(IPv4 and IPv6)",
                          source, host),
              "give --source-ip an address of the server's family");
}

/// Binds `fd` to numeric address `source`, port 0: --source-ip's. False,
/// with `why` filled, where `source` is of another family than `family`.
bool bind_source(int fd, int family, const std::string& source, std::string& why) {
  sockaddr_storage address;
  if (!source_in(family, source, address)) {
    why = fmt::format("--source-ip {} is not of this address's family", source);
    return false;
  }
  const socklen_t length = family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), length) != 0)
    throw_system_error(fmt::format("bind (--source-ip {})", source), errno,
                       "give an address of one of this host's network interfaces");
  return true;
}

}  // namespace

std::string ControlChannel::local_host() const {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(socket_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  if (address.ss_family != AF_INET && address.ss_family != AF_INET6) return {};
  return detail::numeric_host(reinterpret_cast<const sockaddr*>(&address));
}

ControlChannel::ControlChannel(FileDescriptor socket, std::string peer_name, std::string peer_host)
    : socket_(std::move(socket)),
      peer_name_(std::move(peer_name)),
      peer_host_(std::move(peer_host)),
      shared_(std::make_unique<Shared>()) {
  heard_from_peer();
}

void ControlChannel::heard_from_peer() {
  shared_->last_heard_ns.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
}

void ControlChannel::send(const wire::Message& message) {
  const auto bytes = wire::encode(message);
  const std::lock_guard lock(shared_->send);
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
      throw ReadTimeout(fmt::format("timed out after {} ms waiting for {}", timeout.count(), peer_name_),
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
  for (;;) {
    auto message = receive_any(timeout, deadline);
    if (!std::holds_alternative<wire::Heartbeat>(message)) return message;
  }
}

wire::Message ControlChannel::receive_any(Milliseconds timeout, Clock::time_point deadline) {
  const std::lock_guard lock(shared_->receive);
  std::uint8_t header[wire::kHeaderSize];
  read_exactly(header, sizeof header, timeout, deadline);
  const auto frame = wire::decode_header(header);
  std::vector<std::uint8_t> payload(frame.payload_length);
  read_exactly(payload.data(), payload.size(), timeout, deadline);
  heard_from_peer();
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

void ControlChannel::answer_barrier(std::uint32_t sequence, Milliseconds silence) {
  for (;;) {
    // Each word from the peer, a heartbeat included, starts the silence anew.
    wire::Message message;
    try {
      message = receive_any(silence, Clock::now() + silence);
    } catch (const ReadTimeout&) {
      throw Error(fmt::format("{} went silent: no word from it for {} ms while it should be "
                                "running (stopped, crashed, or cut off from this host)",
                                peer_name_, silence.count()),
                  "if the peer is merely slow to answer, raise --timeout on both sides");
    }
    if (std::holds_alternative<wire::Heartbeat>(message)) continue;
    if (auto* theirs = std::get_if<wire::Barrier>(&message)) {
      require(theirs->sequence == sequence,
              fmt::format("protocol error: peer {} is at barrier {}, this side at {}", peer_name_,
                          theirs->sequence, sequence));
      send(wire::Barrier{sequence});
      return;
    }
    if (auto* a = std::get_if<wire::Abort>(&message))
      throw Error("peer " + peer_name_ + " gave up: " + a->reason);
    throw Error("protocol error: expected barrier from " + peer_name_ + ", received a " +
                wire::type_name(message) + " message");
  }
}

void ControlChannel::send_heartbeat() {
  // Never block here: a peer that stopped reading fills the socket, and a
  // heartbeat thread stuck in send() could not be joined. Skip the beat then.
  pollfd p{socket_.get(), POLLOUT, 0};
  if (::poll(&p, 1, 0) == 1 && (p.revents & POLLOUT)) send(wire::Heartbeat{});
}

void ControlChannel::listen_for_heartbeats(Milliseconds silence) {
  std::unique_lock lock(shared_->receive, std::try_to_lock);
  if (lock.owns_lock()) drop_pending_heartbeats();
  const auto last = Clock::time_point(Clock::duration(shared_->last_heard_ns.load(std::memory_order_relaxed)));
  if (Clock::now() - last > silence) shared_->silent.store(true, std::memory_order_relaxed);
}

Milliseconds ControlChannel::quiet_for() const noexcept {
  const auto last = Clock::time_point(Clock::duration(shared_->last_heard_ns.load(std::memory_order_relaxed)));
  return std::chrono::duration_cast<Milliseconds>(Clock::now() - last);
}

void ControlChannel::drop_pending_heartbeats() {
  const std::lock_guard lock(shared_->receive);
  for (;;) {
    std::uint8_t header[wire::kHeaderSize];
    const ssize_t n = ::recv(socket_.get(), header, sizeof header, MSG_PEEK | MSG_DONTWAIT);
    if (n != static_cast<ssize_t>(sizeof header)) return;
    try {
      const auto frame = wire::decode_header(header);
      if (frame.type != wire::MessageType::heartbeat || frame.payload_length != 0) return;
    } catch (const Error&) {
      return;  // garbage is for the code that reads the next message to report
    }
    (void)::recv(socket_.get(), header, sizeof header, MSG_DONTWAIT);
    heard_from_peer();
  }
}

PeerState ControlChannel::check_peer(std::string& reason) {
  const std::lock_guard lock(shared_->receive);
  drop_pending_heartbeats();
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
    if (reason.empty()) reason = "(no reason given)";
  } catch (const Error& e) {
    reason = e.what();
  }
  return PeerState::aborted;
}

bool ControlChannel::peer_has_spoken() {
  const std::lock_guard lock(shared_->receive);
  drop_pending_heartbeats();
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

ControlChannel connect_control(const std::string& host, std::uint16_t port, Milliseconds timeout,
                               const std::string& source) {
  const auto addresses = detail::resolve_address(host, port);

  if (!source.empty()) require_family_of_source(addresses.get(), host, source);
  const auto deadline = Clock::now() + timeout;
  std::string last_error = "no address";
  for (;;) {
    for (auto* a = addresses.get(); a; a = a->ai_next) {
      FileDescriptor fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
      if (fd.get() < 0) throw_system_error("socket", errno);
      if (!source.empty() && !bind_source(fd.get(), a->ai_family, source, last_error)) continue;
      if (int err = connect_before(fd.get(), *a, deadline); err != 0) {
        last_error = std::strerror(err);
        continue;
      }
      tune_control_socket(fd.get(), timeout);
      return ControlChannel(std::move(fd), fmt::format("server {}:{}", host, port),
                            detail::numeric_host(a->ai_addr));
    }
    if (Clock::now() + Milliseconds(200) >= deadline) break;
    std::this_thread::sleep_for(Milliseconds(200));
  }
  throw Error(fmt::format("cannot reach server {}:{} within {} ms: {}", host, port,
                          timeout.count(), last_error),
              "is the server running, and is -p/--port the same on both sides?");
}

ControlListener::ControlListener(std::uint16_t port, Milliseconds peer_timeout,
                                 const std::string& bind_address)
    : port_(port), peer_timeout_(peer_timeout) {
  // Dual-stack where the host has IPv6 (IPv4 clients arrive v4-mapped); a
  // host booted with ipv6.disable=1 refuses AF_INET6 sockets: IPv4 there.
  FileDescriptor probe(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const bool ipv6 = probe.get() >= 0;
  const sockaddr_storage addr = detail::listen_address(bind_address, port, ipv6);
  FileDescriptor fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw_system_error("socket", errno);
  int one = 1, zero = 0;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (addr.ss_family == AF_INET6 && bind_address.empty())
    ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  const socklen_t length = addr.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), length) != 0)
    throw Error(fmt::format("cannot listen on TCP port {}{}: {}", port,
                            bind_address.empty() ? "" : " of " + bind_address, std::strerror(errno)),
                bind_address.empty()
                    ? "another server may hold it; choose another with -p/--port on both sides"
                    : "give --bind an address of this host, or choose another -p/--port");
  if (::listen(fd.get(), 8) != 0) throw_system_error("listen", errno);
  socket_ = std::move(fd);
}

bool ControlListener::has_client(Milliseconds timeout) {
  return wait_for(socket_.get(), POLLIN, Clock::now() + timeout);
}

ControlChannel ControlListener::accept(Milliseconds timeout) {
  if (timeout.count() > 0 && !wait_for(socket_.get(), POLLIN, Clock::now() + timeout))
    throw Error(fmt::format("no client connected within {} ms", timeout.count()));
  sockaddr_storage peer{};
  socklen_t length = sizeof peer;
  FileDescriptor fd(
      ::accept4(socket_.get(), reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC));
  if (fd.get() < 0) throw_system_error("accept", errno);
  tune_control_socket(fd.get(), peer_timeout_);
  return ControlChannel(std::move(fd), "client " + describe_peer(peer),
                        detail::numeric_host(reinterpret_cast<const sockaddr*>(&peer)));
}

std::pair<ControlChannel, ControlChannel> make_control_pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw_system_error("socketpair", errno);
  return {ControlChannel(FileDescriptor(fds[0]), "peer A"),
          ControlChannel(FileDescriptor(fds[1]), "peer B")};
}

}  // namespace rdmabench
