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
#include "rdmabench/control/wire.hpp"

namespace rdmabench {

using Milliseconds = std::chrono::milliseconds;

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

/// What a liveness check found out about the peer.
enum class PeerState { alive, closed, aborted };

class ControlChannel {
 public:
  ControlChannel(FileDescriptor socket, std::string peer_name);

  void send(const wire::Message& message);
  /// Waits at most `timeout` for one whole message; a peer's Abort is
  /// returned like any other message.
  wire::Message receive(Milliseconds timeout);
  /// Receives a message of type T; an Abort or Reject from the peer, or any
  /// other type, is thrown as an Error that quotes the peer.
  template <typename T>
  T receive_expected(Milliseconds timeout, const char* waiting_for);

  /// Sends our message, then waits for the peer's of the same type.
  template <typename T>
  T exchange(const T& mine, Milliseconds timeout, const char* waiting_for) {
    send(mine);
    return receive_expected<T>(timeout, waiting_for);
  }
  /// Both peers meet here (numbered, so that a skipped barrier is caught).
  void barrier(std::uint32_t sequence, Milliseconds timeout);
  /// The passive half of a barrier: wait for the peer's, then answer. Used
  /// where the peer must not see our message while it is still busy.
  void answer_barrier(std::uint32_t sequence, Milliseconds timeout);

  /// Non-blocking look at the socket, used by data-path watchdogs: has the
  /// peer closed it or sent an Abort? Fills `reason` for an Abort.
  PeerState check_peer(std::string& reason);
  /// Non-blocking: has the peer written anything (or closed) since we last
  /// read? Reads nothing; the message stays for the code that expects it.
  bool peer_has_spoken() const;
  /// Best effort: tell the peer why we are giving up. Never throws.
  void try_abort(const std::string& reason) noexcept;

  const std::string& peer_name() const { return peer_name_; }
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

template <typename T>
T ControlChannel::receive_expected(Milliseconds timeout, const char* waiting_for) {
  auto message = receive(timeout);
  if (auto* m = std::get_if<T>(&message)) return *m;
  if (auto* a = std::get_if<wire::Abort>(&message))
    throw Error("peer " + peer_name_ + " gave up: " + a->reason);
  if (auto* r = std::get_if<wire::Reject>(&message))
    throw Error("server " + peer_name_ + " rejected this client: " + r->reason);
  throw Error("protocol error: expected " + std::string(waiting_for) + " from " + peer_name_ +
              ", received a " + wire::type_name(message) + " message");
}

}  // namespace rdmabench
