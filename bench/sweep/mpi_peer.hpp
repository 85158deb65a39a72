#pragma once
// The Bootstrap over MPI: one directed pair's control path between two
// ranks, as MPI point-to-point messages carrying the same wire frames as the
// TCP control channel. Each direction of each pair has its own tag, so the
// several pairs of one rank (incast, all-to-all) never read each other's
// messages. MPI is only touched from the control phases and from the
// heartbeat thread, never from a timed loop.

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <vector>

#include "rdmabench/control/bootstrap.hpp"

namespace rdmabench::sweep_cli {

/// The tags of one directed pair's two directions on the pair communicator.
struct PairTags {
  int to_server = 0;
  int to_client = 0;
};
/// Distinct for every ordered (client, server) of `ranks` ranks; throws
/// rdmabench::Error when the communicator's tag range is too small for them.
PairTags pair_tags(int client, int server, int ranks, int tag_upper_bound);

class MpiPeer final : public Bootstrap {
 public:
  /// `epoch` tells this pair's session from an earlier one of the same two
  /// ranks on the same tags (the next round or test): frames carry it, and a
  /// late frame of another epoch (a heartbeat sent as that run ended) is dropped.
  MpiPeer(MPI_Comm comm, int peer_rank, PairTags tags, bool is_client, std::uint32_t epoch, std::string peer_name);
  ~MpiPeer() override;

  void send(const wire::Message& message) override;
  wire::Message receive(Milliseconds timeout) override;
  void barrier(std::uint32_t sequence, Milliseconds timeout) override;
  void answer_barrier(std::uint32_t sequence, Milliseconds silence) override;
  PeerState check_peer(std::string& reason) override;
  bool peer_has_spoken() override;
  void send_heartbeat() override;
  void listen_for_heartbeats(Milliseconds silence) override;
  const std::atomic<bool>& silence_flag() const noexcept override { return silent_; }
  void try_abort(const std::string& reason) noexcept override;
  const std::string& peer_name() const override { return peer_name_; }
  /// MPI gives no descriptor to wait on: waits that watch one poll instead.
  int wait_fd() const override { return -1; }

 private:
  using Clock = std::chrono::steady_clock;
  /// Moves every message that has arrived into the inbox (heartbeats only
  /// note the time). Caller holds receive_mutex_.
  void take_in_arrived();
  /// The next message other than a heartbeat, before `deadline`.
  wire::Message next_message(Clock::time_point deadline, Milliseconds waited);
  /// Completes finished sends; true if fewer than `limit` are still pending.
  bool reap_sends(std::size_t limit);

  MPI_Comm comm_;
  int peer_;
  int send_tag_;
  int receive_tag_;
  std::uint32_t epoch_;
  std::string peer_name_;
  std::mutex send_mutex_;
  std::recursive_mutex receive_mutex_;
  std::deque<wire::Message> inbox_;
  /// Sends in flight with their bytes: a send never blocks (a stopped peer
  /// stops draining its queue), and its buffer lives until MPI is done.
  struct PendingSend {
    std::vector<std::uint8_t> bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::list<PendingSend> sending_;
  std::atomic<std::int64_t> last_heard_ns_;
  std::atomic<bool> silent_{false};
};

}  // namespace rdmabench::sweep_cli
