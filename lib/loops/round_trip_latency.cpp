// Read and atomic latency: the client issues one signaled read (or atomic)
// on the server's buffer at a time and spins on the completion queue (with
// -e: sleeps on its channel until the completion comes). A
// sample is the time between two consecutive posts: one full round trip, not
// halved (the data comes back with the response). The server's CPU takes no
// part.
#include "loops/loop_kit.hpp"
#include "loops/loops.hpp"
#include "loops/latency_recorders.hpp"

namespace rdmabench::detail {

namespace {

template <typename Clock, typename Recorder>
void round_trip_loop(ibv_qp* qp, ibv_cq* cq, const PreparedOperation& op, Recorder& recorder,
                     CompletionWait& wait, Watchdog& dog) {
  ibv_send_wr wr = op.wr;
  ibv_sge sge = op.sge;
  wr.sg_list = &sge;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  ibv_wc wc;
  for (std::uint64_t i = 0;; ++i) {
    const std::uint64_t now = Clock::now();
    const bool final = recorder.last(i, now);
    recorder.record(i, now);
    if (int rc = ibv_post_send(qp, &wr, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    int n;
    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) wait.idle(dog, i, cq);
    if (n < 0 || wc.status != IBV_WC_SUCCESS) [[unlikely]]
      dog.completion_failed(wc, n);
    dog.watch(i);  // the target's NIC answers even with its process stopped
    if (final) break;
  }
  recorder.finish(Clock::now());
}

}  // namespace

SizeResult measure_round_trip_latency(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  SizeResult r = result_header(v, bytes);

  const auto op = prepare_operation(v, bytes);
  Watchdog dog(v.peer, v.timeout, "the completion");
  CompletionWait wait(v.completion_channel);
  ibv_qp* qp = v.qps.front().get();
  if (v.spec.duration_s) {
    Histogram histogram;  // allocated before timing
    TimedRecorder recorder(histogram, v.spec.duration_s, clock.ticks_per_us, untimed_margin_share(v.spec));
    with_clock(clock, [&]<typename Clock>() { round_trip_loop<Clock>(qp, v.cq.get(), op, recorder, wait, dog); });
    return histogram_result(r, histogram, clock.ticks_per_us, 1.0);
  }
  std::vector<std::uint64_t> stamps(v.spec.iterations + 1);  // allocated before timing
  CountedRecorder recorder{stamps.data(), v.warmup(), v.warmup() + v.spec.iterations};
  with_clock(clock, [&]<typename Clock>() { round_trip_loop<Clock>(qp, v.cq.get(), op, recorder, wait, dog); });
  r.latency_samples_us = interval_samples(stamps, v.spec.iterations, clock.ticks_per_us, 1.0);
  r.latency = summarize_latency(r.latency_samples_us);
  return r;
}

SizeResult passive_latency_side(const LoopView& v, std::uint64_t bytes, const ClockInfo&) {
  return result_header(v, bytes);  // the client times; the server's NIC alone serves it
}

}  // namespace rdmabench::detail
