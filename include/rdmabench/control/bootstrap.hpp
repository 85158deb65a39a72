#pragma once
/// @file
/// The seam between a run and the way its two sides reach each other out of
/// band: exchanging endpoints, meeting at numbered barriers, passing reports
/// and noticing that the other side has gone. The session, the engine and
/// the watchdog use only this interface. ControlChannel (a TCP connection,
/// or a socketpair in tests) implements it today; a launcher-provided
/// channel (MPI for cluster sweeps) plugs in here without touching the loops.
/// How the queue pairs themselves are connected (attribute exchange over
/// this channel, or rdma_cm) is the session's choice, made from the spec.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "rdmabench/control/wire.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

using Milliseconds = std::chrono::milliseconds;

/// What a liveness check found out about the peer.
enum class PeerState { alive, closed, aborted };

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  virtual void send(const wire::Message& message) = 0;
  /// Waits at most `timeout` for one whole message; a peer's Abort is
  /// returned like any other message.
  virtual wire::Message receive(Milliseconds timeout) = 0;
  /// Both peers meet here (numbered, so that a skipped barrier is caught).
  virtual void barrier(std::uint32_t sequence, Milliseconds timeout) = 0;
  /// The passive half of a barrier: wait for the peer's, then answer. Used
  /// where the peer must not see our message while it is still busy, for as
  /// long as its work takes: the wait goes on while the peer's heartbeats
  /// keep coming, and ends after `silence` without a word from it.
  virtual void answer_barrier(std::uint32_t sequence, Milliseconds silence) = 0;
  /// Non-blocking: has the peer gone or sent an Abort? Fills `reason` for an
  /// Abort. Watchdogs call it between polls, never inside a timed region.
  virtual PeerState check_peer(std::string& reason) = 0;
  /// Non-blocking: has the peer written anything but heartbeats (or gone)
  /// since we last read?
  virtual bool peer_has_spoken() = 0;
  /// Says "still here" to the peer; safe to call from another thread while
  /// this one sends or waits (the heartbeat thread does).
  virtual void send_heartbeat() = 0;
  /// From the heartbeat thread: takes in the peer's pending heartbeats if no
  /// other thread is reading, and marks the peer silent once nothing came
  /// from it for `silence`. Never blocks.
  virtual void listen_for_heartbeats(Milliseconds silence) = 0;
  /// Set by the heartbeat thread when it found the peer silent, or could no
  /// longer reach it (its connection closed or reset). Loops that
  /// progress without the peer's CPU (one-sided initiators) read it once per
  /// poll through their watchdog: one relaxed load, no call.
  virtual const std::atomic<bool>& silence_flag() const noexcept = 0;
  bool peer_went_silent() const noexcept { return silence_flag().load(std::memory_order_relaxed); }
  /// How long since the peer's last word, heartbeats included; 0 where the
  /// channel does not keep the time.
  virtual Milliseconds quiet_for() const noexcept { return Milliseconds(0); }
  /// Best effort: tell the peer why we are giving up. Never throws.
  virtual void try_abort(const std::string& reason) noexcept = 0;
  virtual const std::string& peer_name() const = 0;
  /// A descriptor that becomes readable when the peer speaks or goes, for
  /// waits that also watch another (rdma_cm's event channel); -1 if none.
  virtual int wait_fd() const = 0;

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
};

template <typename T>
T Bootstrap::receive_expected(Milliseconds timeout, const char* waiting_for) {
  auto message = receive(timeout);
  if (auto* m = std::get_if<T>(&message)) return *m;
  if (auto* a = std::get_if<wire::Abort>(&message))
    throw Error("peer " + peer_name() + " gave up: " + a->reason);
  if (auto* r = std::get_if<wire::Reject>(&message))
    throw Error(peer_name() + " rejected this client: " + r->reason);  // "server host:port"
  throw Error("protocol error: expected " + std::string(waiting_for) + " from " + peer_name() +
              ", received a " + wire::type_name(message) + " message");
}

}  // namespace rdmabench
