#include "watchdog.hpp"

#include <poll.h>

#include <cstring>

namespace rdmabench::detail {

namespace {
constexpr Milliseconds kErrorGrace{500};
}  // namespace

void Watchdog::throw_if_peer_gone(const std::string& context, Milliseconds grace) {
  std::string reason;
  PeerState state = control_.check_peer(reason);
  // A fabric error often arrives a moment before the peer's socket closes
  // (siw sees its TCP stream reset at once): give the cause time to show.
  const auto until = std::chrono::steady_clock::now() + grace;
  while (state == PeerState::alive && std::chrono::steady_clock::now() < until) {
    pollfd p{control_.fd(), POLLIN, 0};
    ::poll(&p, 1, 20);
    state = control_.check_peer(reason);
  }
  switch (state) {
    case PeerState::closed:
      throw Error(fmt::format("{} closed the control connection mid-run {}", control_.peer_name(),
                              context),
                  "the peer exited or crashed; see its output");
    case PeerState::aborted:
      throw Error(fmt::format("{} gave up mid-run: {}", control_.peer_name(), reason));
    case PeerState::alive:
      break;
  }
}

void Watchdog::post_failed(int rc) {
  // Providers return an errno value, some a negative one (siw: -1).
  const std::string what = fmt::format("ibv_post_send failed: {}",
                                       rc > 0 ? std::strerror(rc) : fmt::format("returned {}", rc));
  throw_if_peer_gone("(" + what + ")", kErrorGrace);
  throw Error(what, "the send queue overflowed or the QP left RTS");
}

void Watchdog::completion_failed(const ibv_wc& wc, int polled) {
  if (polled < 0) throw Error("ibv_poll_cq failed: the completion queue is in error");
  const std::string what =
      fmt::format("completion with error: {} (status {}, vendor error 0x{:x}, wr_id {})",
                  ibv_wc_status_str(wc.status), static_cast<int>(wc.status), wc.vendor_err, wc.wr_id);
  throw_if_peer_gone("(" + what + ")", kErrorGrace);
  throw Error(what, wc.status == IBV_WC_RETRY_EXC_ERR
                        ? "the peer stopped answering: it exited, or the path is down"
                        : failure_hint_);
}

}  // namespace rdmabench::detail
