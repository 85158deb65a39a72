#pragma once
// Ways to hurt a running pair, for the fault tests: stop a process at a named
// phase of its run (lib/system/pause_points.hpp), cut the guest's link, and
// speak to a peer as a hostile one would.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "process.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/control/wire.hpp"

namespace lab {

/// The environment that makes a process stop itself (SIGSTOP) at `phase`
/// ("handshake", "mid-run", "end-of-size", "teardown") and then write
/// `pause_file`.
std::vector<std::string> pause_environment(const std::string& phase,
                                           const std::filesystem::path& pause_file);

/// Waits until `p` has stopped at its pause point (the pause file exists
/// and the process is stopped); false if it exits or `timeout` passes first.
bool wait_until_paused(Process& p, const std::filesystem::path& pause_file,
                       std::chrono::milliseconds timeout);

/// A prio qdisc at loopback's root while it lives, every packet in its first
/// band as before: where PairLinkCut's filters attach.
class LoopbackFilterRoot {
 public:
  LoopbackFilterRoot();
  ~LoopbackFilterRoot();
  LoopbackFilterRoot(const LoopbackFilterRoot&) = delete;
  LoopbackFilterRoot& operator=(const LoopbackFilterRoot&) = delete;
};

/// While it lives, the link between the two sides of one pair in this host
/// is cut: every packet on loopback to or from the pair's two ports (the
/// control port and rdma_cm's, port + 1: siw's TCP) is dropped by a u32
/// filter, so nothing passes and no FIN or RST is sent, while other pairs'
/// packets pass (cells side by side). Loopback carries every packet the
/// kernel sends to this host's own addresses. rxe's own loopback of RoCE
/// packets is not cut: taking its netdev (eth0) down during a live rdma_cm
/// connection leaves rxe's connection manager unable to accept any later
/// connection until reboot (found by the fault matrix). Needs a
/// LoopbackFilterRoot, and an even `port` below the ephemeral range
/// (free_port_pair's), so that no other connection's end matches.
class PairLinkCut {
 public:
  explicit PairLinkCut(int port);
  ~PairLinkCut();
  PairLinkCut(const PairLinkCut&) = delete;
  PairLinkCut& operator=(const PairLinkCut&) = delete;

 private:
  int port_;
};

/// A TCP connection to this host's port `port` on 127.0.0.1.
int connect_loopback(int port);

/// Connects to a server's control port as a client would, sends a hello
/// for `spec`, and returns what the server wrote back (its Reject or Abort
/// frame) until it closed, or whatever came within 10 s.
std::string answer_to_hello(int port, const rdmabench::TestSpec& spec);

/// answer_to_hello, or nullopt when nothing listens on `port`.
std::optional<std::string> try_answer_to_hello(int port, const rdmabench::TestSpec& spec);

/// answer_to_hello, with `after` sent right behind the hello: frames the
/// server reads once it has accepted (endpoints, as a client sends them).
std::string answer_to_hello_then(int port, const rdmabench::TestSpec& spec,
                                 const std::vector<rdmabench::wire::Message>& after);

/// The reason a Reject or Abort frame gives (or what else `frame` was).
std::string reason_in(const std::string& frame);

/// A fake server on 127.0.0.1:`port` that answers whoever connects with
/// bytes that are not our protocol, and then keeps the connection open and
/// silent (so that only what it said, not a hang-up, can end the client).
class GarbageServer {
 public:
  explicit GarbageServer(int port);
  ~GarbageServer();
  GarbageServer(const GarbageServer&) = delete;
  GarbageServer& operator=(const GarbageServer&) = delete;

 private:
  int listener_ = -1;
  int connection_ = -1;
  std::thread thread_;
};

}  // namespace lab
