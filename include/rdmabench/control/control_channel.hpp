#pragma once
/// @file
/// The out-of-band control connection between the two peers: framed wire
/// messages over a stream socket (TCP between hosts, a socketpair in tests),
/// every read bounded by a timeout.

#include <chrono>
#include <cstdint>
#include <memory>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/control/bootstrap.hpp"
#include "rdmabench/control/wire.hpp"

namespace rdmabench {

/// A file descriptor that closes itself.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

/// The Bootstrap over a stream socket: framed wire messages, every read
/// bounded by a timeout.
class ControlChannel final : public Bootstrap {
 public:
  /// `peer_host`: the peer's numeric address, where it is known (TCP).
  ControlChannel(FileDescriptor socket, std::string peer_name, std::string peer_host = {});

  void send(const wire::Message& message) override;
  wire::Message receive(Milliseconds timeout) override;
  void barrier(std::uint32_t sequence, Milliseconds timeout) override;
  void answer_barrier(std::uint32_t sequence, Milliseconds silence) override;
  PeerState check_peer(std::string& reason) override;
  bool peer_has_spoken() override;
  void send_heartbeat() override;
  void listen_for_heartbeats(Milliseconds silence) override;
  const std::atomic<bool>& silence_flag() const noexcept override { return shared_->silent; }
  Milliseconds quiet_for() const noexcept override;
  void try_abort(const std::string& reason) noexcept override;
  const std::string& peer_name() const override { return peer_name_; }
  int wait_fd() const override { return socket_.get(); }
  int fd() const { return socket_.get(); }
  const std::string& peer_host() const { return peer_host_; }
  /// This end's numeric address ("10.0.2.15": on a server, the address
  /// the client connected to); empty where the socket has none (a socketpair).
  std::string local_host() const;

 private:
  void await_barrier(std::uint32_t sequence, Milliseconds timeout);
  /// One whole frame, heartbeats included, before `deadline`.
  wire::Message receive_any(Milliseconds timeout, std::chrono::steady_clock::time_point deadline);
  void read_exactly(std::uint8_t* data, std::size_t length, Milliseconds timeout,
                    std::chrono::steady_clock::time_point deadline);
  /// Reads the heartbeats at the head of the socket's queue, without waiting.
  void drop_pending_heartbeats();
  FileDescriptor socket_;
  std::string peer_name_;
  std::string peer_host_;
  /// What the heartbeat thread shares with this one (held by pointer so the
  /// channel stays movable): frames must not interleave either way, and the
  /// time of the peer's last word decides when it went silent.
  struct Shared {
    std::mutex send;
    std::recursive_mutex receive;
    std::atomic<std::int64_t> last_heard_ns;
    std::atomic<bool> silent{false};
  };
  std::unique_ptr<Shared> shared_;
  void heard_from_peer();
};

/// Connects to a server, retrying until `timeout` passes (so a client started
/// a moment before its server still connects). Control sockets of both ends
/// use TCP keepalive and TCP_USER_TIMEOUT of `timeout`, so that a peer host
/// that vanishes (no FIN, no RST) breaks the connection instead of leaving
/// unacknowledged data waiting for ever. With `source` (--source-ip, a
/// numeric address of this host), the connection leaves from that address.
ControlChannel connect_control(const std::string& host, std::uint16_t port, Milliseconds timeout,
                               const std::string& source = {});

/// Listens on a TCP port for control connections: on `bind_address` only,
/// or on every address (dual-stack, or IPv4 alone on a host without IPv6).
/// Accepted sockets get keepalive and a user timeout of `peer_timeout`.
class ControlListener {
 public:
  explicit ControlListener(std::uint16_t port, Milliseconds peer_timeout = Milliseconds(10000),
                           const std::string& bind_address = {});
  /// Waits for the next peer; `timeout` of zero waits forever.
  ControlChannel accept(Milliseconds timeout);
  /// Whether a peer is waiting to be accepted, within `timeout`.
  bool has_client(Milliseconds timeout);
  std::uint16_t port() const { return port_; }
  int fd() const { return socket_.get(); }  ///< the listening socket, for poll

 private:
  FileDescriptor socket_;
  std::uint16_t port_;
  Milliseconds peer_timeout_;
};

/// Two connected channels in one process (engine tests).
std::pair<ControlChannel, ControlChannel> make_control_pair();

}  // namespace rdmabench
