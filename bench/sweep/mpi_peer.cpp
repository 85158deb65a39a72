#include "sweep/mpi_peer.hpp"

#include "sweep/mpi_world.hpp"

#include <fmt/format.h>

#include <cstring>
#include <span>
#include <thread>

namespace rdmabench::sweep_cli {

namespace {

/// Tags below this are the sweep's own coordination messages.
constexpr int kFirstPairTag = 16;
/// How often a wait looks for the peer's next message: short against a
/// handshake's few exchanges, long enough not to take a CPU from a timed
/// loop of another pair of this rank.
constexpr auto kPollInterval = std::chrono::microseconds(200);
/// Heartbeats are skipped while this many sends wait for a peer that does
/// not drain them (stopped); its silence is then the other side's to see.
constexpr std::size_t kMaxHeartbeatsInFlight = 8;

std::int64_t now_ns() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

}  // namespace

PairTags pair_tags(int client, int server, int ranks, int tag_upper_bound) {
  const long long base = kFirstPairTag + 2LL * (static_cast<long long>(client) * ranks + server);
  if (base + 1 > tag_upper_bound)
    throw Error(fmt::format("{} ranks need MPI tags up to {}, but this MPI allows {}", ranks, base + 1,
                            tag_upper_bound),
                "run fewer ranks per sweep (split the fabric by rail or by group of hosts)");
  return {static_cast<int>(base), static_cast<int>(base + 1)};
}

MpiPeer::MpiPeer(MPI_Comm comm, int peer_rank, PairTags tags, bool is_client, std::uint32_t epoch,
                 std::string peer_name)
    : comm_(comm), peer_(peer_rank), send_tag_(is_client ? tags.to_server : tags.to_client),
      receive_tag_(is_client ? tags.to_client : tags.to_server), epoch_(epoch),
      peer_name_(std::move(peer_name)), last_heard_ns_(now_ns()) {}

MpiPeer::~MpiPeer() {
  const std::lock_guard lock(send_mutex_);
  reap_sends(0);
  // Sends a peer never took (it stopped or left): MPI may still read their
  // bytes after this, so release the requests and keep the bytes (a few
  // per failed pair) rather than free memory MPI points at.
  for (auto& pending : sending_) {
    MPI_Request_free(&pending.request);
    keep_for_mpi(std::move(pending.bytes));
  }
}

bool MpiPeer::reap_sends(std::size_t limit) {
  for (auto it = sending_.begin(); it != sending_.end();) {
    int done = 0;
    MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    it = done ? sending_.erase(it) : std::next(it);
  }
  return sending_.size() < limit;
}

void MpiPeer::send(const wire::Message& message) {
  const std::lock_guard lock(send_mutex_);
  reap_sends(0);
  auto& pending = sending_.emplace_back();
  const auto frame = wire::encode(message);
  pending.bytes.resize(sizeof epoch_);
  std::memcpy(pending.bytes.data(), &epoch_, sizeof epoch_);
  pending.bytes.insert(pending.bytes.end(), frame.begin(), frame.end());
  const int rc = MPI_Isend(pending.bytes.data(), static_cast<int>(pending.bytes.size()), MPI_BYTE, peer_,
                           send_tag_, comm_, &pending.request);
  if (rc != MPI_SUCCESS) {
    sending_.pop_back();
    throw Error(fmt::format("MPI_Isend to {} failed (error {})", peer_name_, rc));
  }
}

void MpiPeer::take_in_arrived() {
  for (;;) {
    int arrived = 0;
    MPI_Message handle;
    MPI_Status status;
    MPI_Improbe(peer_, receive_tag_, comm_, &arrived, &handle, &status);
    if (!arrived) return;
    int length = 0;
    MPI_Get_count(&status, MPI_BYTE, &length);
    std::vector<std::uint8_t> frame(static_cast<std::size_t>(std::max(length, 0)));
    MPI_Mrecv(frame.data(), length, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    std::uint32_t epoch = 0;
    if (frame.size() >= sizeof epoch) std::memcpy(&epoch, frame.data(), sizeof epoch);
    if (frame.size() < sizeof epoch || epoch != epoch_) continue;  // an earlier run's late word
    last_heard_ns_.store(now_ns(), std::memory_order_relaxed);
    // The peer is another rank of this program, but its bytes are checked
    // like any peer's: decode verifies every length and type.
    auto message = wire::decode(std::span(frame).subspan(sizeof epoch));
    if (!std::holds_alternative<wire::Heartbeat>(message)) inbox_.push_back(std::move(message));
  }
}

wire::Message MpiPeer::next_message(Clock::time_point deadline, Milliseconds waited) {
  for (;;) {
    {
      const std::lock_guard lock(receive_mutex_);
      take_in_arrived();
      if (!inbox_.empty()) {
        auto message = std::move(inbox_.front());
        inbox_.pop_front();
        return message;
      }
    }
    if (Clock::now() >= deadline)
      throw Error(fmt::format("timed out after {} ms waiting for a message from {}", waited.count(), peer_name_),
                  "the peer rank is stopped or stuck; raise --timeout if it is merely slow");
    std::this_thread::sleep_for(kPollInterval);
  }
}

wire::Message MpiPeer::receive(Milliseconds timeout) { return next_message(Clock::now() + timeout, timeout); }

void MpiPeer::barrier(std::uint32_t sequence, Milliseconds timeout) {
  send(wire::Barrier{sequence});
  const auto theirs = receive_expected<wire::Barrier>(timeout, "barrier");
  require(theirs.sequence == sequence, fmt::format("protocol error: peer {} is at barrier {}, this side at {}",
                                                   peer_name_, theirs.sequence, sequence));
}

void MpiPeer::answer_barrier(std::uint32_t sequence, Milliseconds silence) {
  for (;;) {
    // Each word from the peer, a heartbeat included, starts the silence anew.
    const auto last = Clock::time_point(Clock::duration(last_heard_ns_.load(std::memory_order_relaxed)));
    wire::Message message;
    try {
      message = next_message(last + silence, silence);
    } catch (const Error&) {
      if (Clock::now() - Clock::time_point(Clock::duration(last_heard_ns_.load())) < silence) continue;
      throw Error(fmt::format("{} went silent: no word from it for {} ms while it should be running "
                              "(stopped, crashed, or cut off from this rank)",
                              peer_name_, silence.count()),
                  "if the peer is merely slow to answer, raise --timeout");
    }
    if (auto* theirs = std::get_if<wire::Barrier>(&message)) {
      require(theirs->sequence == sequence, fmt::format("protocol error: peer {} is at barrier {}, this side at {}",
                                                        peer_name_, theirs->sequence, sequence));
      send(wire::Barrier{sequence});
      return;
    }
    if (auto* a = std::get_if<wire::Abort>(&message)) throw Error("peer " + peer_name_ + " gave up: " + a->reason);
    throw Error("protocol error: expected barrier from " + peer_name_ + ", received a " +
                wire::type_name(message) + " message");
  }
}

PeerState MpiPeer::check_peer(std::string& reason) {
  const std::lock_guard lock(receive_mutex_);
  take_in_arrived();
  // Anything else is left for the code that expects it; only an Abort concerns us.
  if (inbox_.empty() || !std::holds_alternative<wire::Abort>(inbox_.front())) return PeerState::alive;
  reason = std::get<wire::Abort>(inbox_.front()).reason;
  if (reason.empty()) reason = "(no reason given)";
  inbox_.pop_front();
  return PeerState::aborted;
}

bool MpiPeer::peer_has_spoken() {
  const std::lock_guard lock(receive_mutex_);
  take_in_arrived();
  return !inbox_.empty();
}

void MpiPeer::send_heartbeat() {
  {
    const std::lock_guard lock(send_mutex_);
    if (!reap_sends(kMaxHeartbeatsInFlight)) return;
  }
  send(wire::Heartbeat{});
}

void MpiPeer::listen_for_heartbeats(Milliseconds silence) {
  std::unique_lock lock(receive_mutex_, std::try_to_lock);
  if (lock.owns_lock()) take_in_arrived();
  const auto last = Clock::time_point(Clock::duration(last_heard_ns_.load(std::memory_order_relaxed)));
  if (Clock::now() - last > silence) silent_.store(true, std::memory_order_relaxed);
}

void MpiPeer::try_abort(const std::string& reason) noexcept {
  try {
    send(wire::Abort{reason.substr(0, wire::kMaxText)});
  } catch (...) {
    // The peer may be the reason we abort; there is nobody left to tell.
  }
}

}  // namespace rdmabench::sweep_cli
