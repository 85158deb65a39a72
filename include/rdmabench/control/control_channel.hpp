#pragma once
/// @file
/// The out-of-band control connection between the two peers: framed wire
/// messages over a stream socket (TCP between hosts, a socketpair in tests),
/// every read bounded by a timeout.

#include <chrono>
#include <cstdint>
#include <memory>
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
  ControlChannel(FileDescriptor socket, std::string peer_name);

  void send(const wire::Message& message) override;
  wire::Message receive(Milliseconds timeout) override;
  void barrier(std::uint32_t sequence, Milliseconds timeout) override;
  void answer_barrier(std::uint32_t sequence, Milliseconds timeout) override;
  PeerState check_peer(std::string& reason) override;
  bool peer_has_spoken() const override;
  void try_abort(const std::string& reason) noexcept override;
  const std::string& peer_name() const override { return peer_name_; }
  int wait_fd() const override { return socket_.get(); }
  int fd() const { return socket_.get(); }

 private:
  void await_barrier(std::uint32_t sequence, Milliseconds timeout);
  void read_exactly(std::uint8_t* data, std::size_t length, Milliseconds timeout,
                    std::chrono::steady_clock::time_point deadline);
  FileDescriptor socket_;
  std::string peer_name_;
};

/// Connects to a server, retrying until `timeout` passes (so a client started
/// a moment before its server still connects).
ControlChannel connect_control(const std::string& host, std::uint16_t port, Milliseconds timeout);

/// Listens on a TCP port for control connections.
class ControlListener {
 public:
  explicit ControlListener(std::uint16_t port);
  /// Waits for the next peer; `timeout` of zero waits forever.
  ControlChannel accept(Milliseconds timeout);
  std::uint16_t port() const { return port_; }

 private:
  FileDescriptor socket_;
  std::uint16_t port_;
};

/// Two connected channels in one process (engine tests).
std::pair<ControlChannel, ControlChannel> make_control_pair();

}  // namespace rdmabench
