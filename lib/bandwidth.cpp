// Bandwidth of one-sided writes or reads: the client keeps tx-depth operations
// in flight, signals one in `signal_every`, and polls completions in batches.
// The server's CPU takes no part; it waits at the barrier that ends the size.
#include <algorithm>

#include "engine_internal.hpp"

namespace rdmabench::detail {

namespace {

constexpr int kPollBatch = 16;

struct CompletionStamp {
  std::uint64_t time;
  std::uint64_t completed;
};

struct BandwidthLoop {
  ibv_qp* qp;
  ibv_cq* cq;
  ibv_send_wr* chain;  ///< post_list work requests linked by `next`
  unsigned base_flags;
  std::uint64_t post_list;
  std::uint64_t depth;
  std::uint64_t signal_every;  ///< <= depth, or the loop would wait forever
};

/// Runs `count` operations; returns the number of stamps written (the first is
/// the start, then one per poll that reaped completions).
template <typename Clock>
std::size_t bandwidth_loop(const BandwidthLoop& L, std::uint64_t count,
                                 CompletionStamp* stamps, Watchdog& dog) {
  ibv_send_wr* bad = nullptr;
  ibv_wc wc[kPollBatch];
  std::uint64_t posted = 0, completed = 0;
  std::size_t n_stamps = 0;
  stamps[n_stamps++] = {Clock::now(), 0};
  while (completed < count) {
    // Fill the free queue slots with chains of up to post_list requests; the
    // last chain may be shorter. Only a chain's last request can be
    // signaled: when the chain crosses a multiple of signal_every, or ends
    // the run.
    std::uint64_t room = std::min(count - posted, L.depth - (posted - completed));
    while (room > 0) {
      const std::uint64_t k = std::min(room, L.post_list);
      const std::uint64_t before = posted;
      posted += k;
      room -= k;
      ibv_send_wr& last = L.chain[k - 1];
      const bool signaled = posted / L.signal_every != before / L.signal_every || posted == count;
      last.next = nullptr;
      last.wr_id = posted;  // a completion reports how many operations are done
      last.send_flags = L.base_flags | (signaled ? unsigned{IBV_SEND_SIGNALED} : 0u);
      if (int rc = ibv_post_send(L.qp, L.chain, &bad); rc != 0) [[unlikely]]
        dog.post_failed(rc);
      last.send_flags = L.base_flags;
      last.next = k < L.post_list ? &L.chain[k] : nullptr;
    }
    const int n = ibv_poll_cq(L.cq, kPollBatch, wc);
    if (n == 0) {
      dog.idle(completed);
      continue;
    }
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    for (int k = 0; k < n; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
        dog.completion_failed(wc[k]);
      completed = wc[k].wr_id;
    }
    stamps[n_stamps++] = {Clock::now(), completed};
  }
  return n_stamps;
}

/// Best rate over any window of about one queue's worth of messages.
double peak_mb_per_s(const std::vector<CompletionStamp>& stamps, std::size_t window,
                     std::uint64_t bytes, double ticks_per_us) {
  double peak = 0;
  window = std::clamp<std::size_t>(window, 1, stamps.size() - 1);
  for (std::size_t k = window; k < stamps.size(); ++k) {
    const double us = static_cast<double>(stamps[k].time - stamps[k - window].time) / ticks_per_us;
    if (us <= 0) continue;
    const double moved = static_cast<double>((stamps[k].completed - stamps[k - window].completed) * bytes);
    peak = std::max(peak, moved / us);  // bytes per us == MB/s
  }
  return peak;
}

}  // namespace

SizeResult measure_bandwidth(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(s, bytes);
  if (s.role == Role::server) return r;  // passive: nothing to time

  const std::uint64_t depth = s.spec.tx_depth;
  const std::uint64_t post_list = std::clamp<std::uint64_t>(s.spec.post_list, 1, depth);
  // The chain is built before timing: copies of one prepared request, each
  // with its own scatter entry, linked in order.
  const auto op = prepare_operation(s, bytes);
  std::vector<ibv_sge> sges(post_list, op.sge);
  std::vector<ibv_send_wr> chain(post_list, op.wr);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    chain[i].sg_list = &sges[i];
    chain[i].send_flags = op.base_flags;
    chain[i].next = i + 1 < chain.size() ? &chain[i + 1] : nullptr;
  }
  BandwidthLoop loop{s.qp.get(), s.cq.get(), chain.data(), op.base_flags, post_list, depth,
                     signal_interval(s.spec)};
  std::vector<CompletionStamp> stamps(s.spec.iterations / loop.signal_every + 2);
  std::vector<CompletionStamp> warmup_stamps(s.spec.warmup / loop.signal_every + 2);
  Watchdog dog(s.control, s.timeout, "completions");
  std::size_t n_stamps = 0;
  with_clock(clock, [&]<typename Clock>() {
    if (s.spec.warmup) bandwidth_loop<Clock>(loop, s.spec.warmup, warmup_stamps.data(), dog);
    n_stamps = bandwidth_loop<Clock>(loop, s.spec.iterations, stamps.data(), dog);
  });
  stamps.resize(n_stamps);

  BandwidthFigures b;
  const double us = static_cast<double>(stamps.back().time - stamps.front().time) / clock.ticks_per_us;
  b.seconds = us / 1e6;
  b.average_mb_per_s = static_cast<double>(bytes * s.spec.iterations) / us;
  b.message_rate_mpps = static_cast<double>(s.spec.iterations) / us;
  b.peak_mb_per_s = std::max(b.average_mb_per_s,
                             peak_mb_per_s(stamps, depth / loop.signal_every, bytes, clock.ticks_per_us));
  r.bandwidth = b;
  return r;
}

}  // namespace rdmabench::detail
