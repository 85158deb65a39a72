// Read latency: the client reads the server's buffer, one signaled read at a
// time, and spins on the completion queue. A sample is the time between two
// consecutive posts: one full round trip, not halved (a read's data comes
// back with its response). The server's CPU takes no part.
#include "engine_internal.hpp"

namespace rdmabench::detail {

namespace {

template <typename Clock>
void read_latency_loop(ibv_qp* qp, ibv_cq* cq, const PreparedOperation& read, std::uint64_t warmup,
                       std::uint64_t total, std::uint64_t* stamps, Watchdog& dog) {
  ibv_send_wr wr = read.wr;
  ibv_sge sge = read.sge;
  wr.sg_list = &sge;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  ibv_wc wc;
  for (std::uint64_t i = 0; i < total; ++i) {
    const std::uint64_t now = Clock::now();
    if (i >= warmup) stamps[i - warmup] = now;
    if (int rc = ibv_post_send(qp, &wr, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    int n;
    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(i);
    if (n < 0 || wc.status != IBV_WC_SUCCESS) [[unlikely]]
      dog.completion_failed(wc, n);
  }
  stamps[total - warmup] = Clock::now();
}

}  // namespace

SizeResult measure_read_latency(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(s, bytes);
  if (s.role == Role::server) return r;  // passive: nothing to time

  const auto read = prepare_operation(s, bytes);
  std::vector<std::uint64_t> stamps(s.spec.iterations + 1);  // allocated before timing
  Watchdog dog(s.control, s.timeout, "the read's completion");
  with_clock(clock, [&]<typename Clock>() {
    read_latency_loop<Clock>(s.qp.get(), s.cq.get(), read, s.spec.warmup,
                             s.spec.warmup + s.spec.iterations, stamps.data(), dog);
  });
  r.latency_samples_us = interval_samples(stamps, s.spec.iterations, clock.ticks_per_us, 1.0);
  r.latency = summarize_latency(r.latency_samples_us);
  return r;
}

}  // namespace rdmabench::detail
