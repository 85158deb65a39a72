#include "system/watchdog.hpp"

#include <poll.h>

#include <algorithm>
#include <cstring>

namespace rdmabench::detail {

namespace {
constexpr Milliseconds kErrorGrace{500};
}  // namespace

std::string Watchdog::waiting_context(std::uint64_t progress) const {
  return fmt::format("while this side was waiting for {} (at message {})", waiting_for_, progress);
}

void Watchdog::peer_went_silent(std::uint64_t progress) {
  // Silent because gone (the flag is set then too): say so, with its reason.
  throw_if_peer_gone([&] { return waiting_context(progress); });
  throw Error(fmt::format("{} went silent: no word from it for {} ms while this side was "
                          "waiting for {} (at message {}); it is stopped, crashed, or cut off",
                          control_.peer_name(), timeout_.count(), waiting_for_, progress),
              "if the peer is merely slow to answer, raise --timeout on both sides");
}

void Watchdog::check(std::uint64_t progress) {
  if (peer_silent_.load(std::memory_order_relaxed)) peer_went_silent(progress);
  if (progress != last_progress_) {
    last_progress_ = progress;
    stalled_ = false;
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!stalled_) {
    stalled_ = true;
    stalled_since_ = now;
  }
  throw_if_peer_gone([&] { return waiting_context(progress); });
  if (now - stalled_since_ > timeout_) {
    // Stalled because the peer is stopped or cut off: say that, once its
    // heartbeats have been missing long enough to tell.
    if (silent_soon(waiting_context(progress))) peer_went_silent(progress);
    throw Error(fmt::format("no progress for {} ms waiting for {} (at message {})",
                            timeout_.count(), waiting_for_, progress),
                "the peer or the fabric is stuck; raise --timeout if it is merely slow");
  }
}

PeerState Watchdog::peer_state(Milliseconds grace, std::string& reason) {
  PeerState state = control_.check_peer(reason);
  // A fabric error often arrives a moment before the peer's socket closes
  // (siw sees its TCP stream reset at once): give the cause time to show.
  const auto until = std::chrono::steady_clock::now() + grace;
  while (state == PeerState::alive && std::chrono::steady_clock::now() < until) {
    pollfd p{control_.wait_fd(), POLLIN, 0};
    ::poll(&p, 1, 20);
    state = control_.check_peer(reason);
  }
  return state;
}

void Watchdog::throw_peer_gone(PeerState state, const std::string& reason,
                               const std::string& context) {
  if (state == PeerState::closed)
    throw Error(
        fmt::format("{} closed the control connection mid-run {}", control_.peer_name(), context),
        "the peer exited or crashed; see its output");
  throw Error(fmt::format("{} gave up mid-run: {}", control_.peer_name(), reason));
}

bool Watchdog::silent_soon(const std::string& what) {
  const Milliseconds quiet = control_.quiet_for();
  if (quiet < timeout_ / 2) return false;
  // The heartbeat thread looks every timeout/4 (at most 1 s): the flag is
  // set by then if the peer stays quiet.
  const auto until = std::chrono::steady_clock::now() + (timeout_ - std::min(quiet, timeout_)) +
                     std::min(timeout_ / 4, Milliseconds(1000)) + Milliseconds(100);
  while (!peer_silent_.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < until)
    throw_if_peer_gone([&] { return what; }, Milliseconds(20));
  return peer_silent_.load(std::memory_order_relaxed);
}

void Watchdog::throw_if_peer_fell_silent(const std::string& what) {
  if (!silent_soon("(" + what + ")")) return;
  throw Error(fmt::format("{} went silent: no word from it for {} ms, and then this side's RDMA failed ({})",
                          control_.peer_name(), timeout_.count(), what),
              "it is stopped, crashed, or cut off (a peer that gave up first tears down its memory, which fails "
              "this side's RDMA); if it is merely slow to answer, raise --timeout on both sides");
}

void Watchdog::post_failed(int rc) {
  // Providers return an errno value, some a negative one (siw: -1).
  const std::string what = fmt::format("ibv_post_send failed: {}",
                                       rc > 0 ? std::strerror(rc) : fmt::format("returned {}", rc));
  throw_if_peer_gone([&] { return "(" + what + ")"; }, kErrorGrace);
  throw_if_peer_fell_silent(what);
  throw Error(what, "the send queue overflowed or the QP left RTS");
}

void Watchdog::completion_failed(const ibv_wc& wc, int polled) {
  if (polled < 0) throw Error("ibv_poll_cq failed: the completion queue is in error");
  const std::string what =
      fmt::format("completion with error: {} (status {}, vendor error 0x{:x}, wr_id {})",
                  ibv_wc_status_str(wc.status), static_cast<int>(wc.status), wc.vendor_err, wc.wr_id);
  throw_if_peer_gone([&] { return "(" + what + ")"; }, kErrorGrace);
  throw_if_peer_fell_silent(what);
  throw Error(what, wc.status == IBV_WC_RETRY_EXC_ERR
                        ? "the peer stopped answering: it exited, or the path is down"
                        : failure_hint_);
}

}  // namespace rdmabench::detail
