#pragma once
// The Bootstrap a Watchdog watches, for loop_overhead: a peer that is always
// there and never silent. The watchdog's hot path reads only its silence
// flag; its rare check (once in 2^20 idle spins) asks check_peer, which
// answers at once here, where a real ControlChannel makes two system calls:
// at that rate a microsecond per check is a picosecond per spin either way.
// Nothing else of a Bootstrap belongs in a timed loop, so the rest refuses.

#include <atomic>
#include <string>

#include "rdmabench/control/bootstrap.hpp"

namespace rdmabench::microbench {

class AlwaysAlivePeer final : public Bootstrap {
 public:
  void send(const wire::Message&) override { refuse("send"); }
  wire::Message receive(Milliseconds) override { refuse("receive"); }
  void barrier(std::uint32_t, Milliseconds) override { refuse("barrier"); }
  void answer_barrier(std::uint32_t, Milliseconds) override { refuse("answer_barrier"); }
  PeerState check_peer(std::string&) override { return PeerState::alive; }
  bool peer_has_spoken() override { return false; }
  void send_heartbeat() override {}
  void listen_for_heartbeats(Milliseconds) override {}
  const std::atomic<bool>& silence_flag() const noexcept override { return silent_; }
  void try_abort(const std::string&) noexcept override {}
  const std::string& peer_name() const override { return name_; }
  int wait_fd() const override { return -1; }

 private:
  [[noreturn]] static void refuse(const char* what) {
    throw Error(std::string("loop_overhead's stand-in peer has no ") + what +
                ": a timed loop never calls it");
  }
  std::atomic<bool> silent_{false};
  std::string name_ = "the stand-in peer";
};

}  // namespace rdmabench::microbench
