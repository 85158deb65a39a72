// The receiving side of send bandwidth: the server reaps receive completions
// in batches and reposts each consumed receive at once, so the sender finds
// one posted (else it would stall on receiver-not-ready retries). It times
// the timed messages from its first arrival to its last.
#include <fmt/format.h>

#include <algorithm>

#include "engine_internal.hpp"

namespace rdmabench::detail {

namespace {

constexpr int kPollBatch = 16;

template <typename Clock>
void receive_loop(ibv_qp* qp, ibv_cq* cq, const PreparedReceive& receive, std::uint64_t bytes,
                  std::uint64_t count, std::uint64_t* first, std::uint64_t* last, Watchdog& dog) {
  ibv_recv_wr wr = receive.wr;
  ibv_sge sge = receive.sge;
  wr.sg_list = &sge;
  ibv_recv_wr* bad = nullptr;
  ibv_wc wc[kPollBatch];
  std::uint64_t received = 0;
  while (received < count) {
    // Never reap past `count`: the warmup phase must not swallow the first
    // timed messages (nor the timed phase the next size's).
    const int want = static_cast<int>(std::min<std::uint64_t>(kPollBatch, count - received));
    const int n = ibv_poll_cq(cq, want, wc);
    if (n == 0) {
      dog.idle(received);
      continue;
    }
    const std::uint64_t now = Clock::now();
    if (received == 0) *first = now;
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    for (int k = 0; k < n; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
        dog.completion_failed(wc[k]);
      if (wc[k].byte_len != bytes) [[unlikely]]
        throw Error(fmt::format("received a {}-byte message where {} bytes were expected",
                                wc[k].byte_len, bytes));
      if (int rc = ibv_post_recv(qp, &wr, &bad); rc != 0) [[unlikely]]
        dog.post_failed(rc);
    }
    received += static_cast<std::uint64_t>(n);
    *last = now;
  }
}

}  // namespace

SizeResult measure_receive_bandwidth(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(s, bytes);
  const auto receive = prepare_receive(s);
  Watchdog dog(s.control, s.timeout, "the peer's sends");
  std::uint64_t first = 0, last = 0;
  with_clock(clock, [&]<typename Clock>() {
    if (s.spec.warmup)
      receive_loop<Clock>(s.qp.get(), s.recv_cq.get(), receive, bytes, s.spec.warmup, &first, &last, dog);
    receive_loop<Clock>(s.qp.get(), s.recv_cq.get(), receive, bytes, s.spec.iterations, &first, &last, dog);
  });
  // From the first arrival to the last, the first message's own transfer is
  // not inside the interval: count iterations - 1 messages over it.
  const double us = static_cast<double>(last - first) / clock.ticks_per_us;
  if (s.spec.iterations > 1 && us > 0) {
    BandwidthFigures b;
    b.seconds = us / 1e6;
    const double messages = static_cast<double>(s.spec.iterations - 1);
    b.average_mb_per_s = messages * static_cast<double>(bytes) / us;
    b.message_rate_mpps = messages / us;
    b.peak_mb_per_s = b.average_mb_per_s;  // per-completion stamps would cost the receiver time
    r.bandwidth = b;
  }
  return r;
}

}  // namespace rdmabench::detail
