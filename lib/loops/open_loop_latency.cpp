// Open-loop read and atomic latency (--rate): messages leave on a fixed
// schedule (rdmabench/pacing/pacer.hpp), up to -t of them in flight, each
// signaled. A message's response time counts from when it was due, its
// service time from when it was posted. A closed loop sends the next message
// only when the last one is back, so a stall of T shows as one slow sample
// although it held up T x rate messages (coordinated omission); here each of
// them is charged from its own due time. The server's CPU takes no part.
//
// Which messages count: a counted run (-n) posts warm-up + iterations and
// times those after the warm-up, each kept (exact percentiles, and the three
// times of every message for --dump-samples); a -D run posts what the
// schedule holds until the duration ends and times those due inside the
// window that leaves out the first and last tenth, into histograms.
#include "loops/loops.hpp"
#include "loops/open_loop_schedule.hpp"
#include "loops/poll_batch.hpp"

namespace rdmabench::detail {

namespace {

template <typename Clock, typename Sink>
void open_loop_round_trip(ibv_qp* qp, ibv_cq* cq, const PreparedOperation& op, Pacer& pacer,
                          std::vector<Posted>& ring, Sink& sink, Watchdog& dog) {
  ibv_send_wr wr = op.wr;
  ibv_sge sge = op.sge;
  wr.sg_list = &sge;
  wr.send_flags = IBV_SEND_SIGNALED;  // every message's completion is its response
  ibv_wc wc[kPollBatch];
  std::uint64_t completed = 0;
  for (;;) {
    const std::uint64_t posted = pacer.posted();
    if (sink.keep_posting(posted, Clock::now()))
      post_due<Clock>(qp, wr, pacer, ring, ring.size() - (posted - completed), sink.total() - posted, dog);
    else if (completed == posted)
      break;
    const int n = ibv_poll_cq(cq, kPollBatch, wc);
    if (n < 0) [[unlikely]]
      dog.completion_failed(wc[0], n);
    if (n == 0) {
      if (pacer.posted() > completed) dog.idle(completed);
      dog.watch(completed);  // the target's NIC answers even with its process stopped
      continue;
    }
    const std::uint64_t now = Clock::now();
    for (int k = 0; k < n; ++k) {
      if (wc[k].status != IBV_WC_SUCCESS) [[unlikely]]
        dog.completion_failed(wc[k]);
      // One RC queue pair completes in order: the k-th completion is the
      // oldest message in flight.
      const Posted& p = ring[completed % ring.size()];
      sink.record(completed, p.intended, p.posted, now);
      ++completed;
    }
  }
}

}  // namespace

SizeResult measure_open_loop_round_trip(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  const PreparedOperation op = prepare_operation(v, bytes);
  Watchdog dog(v.peer, v.timeout, "the completion");
  return run_open_loop(v, bytes, clock, [&]<typename Clock>(Pacer& pacer, std::vector<Posted>& ring, auto& sink) {
    open_loop_round_trip<Clock>(v.qps.front().get(), v.cq.get(), op, pacer, ring, sink, dog);
  });
}

}  // namespace rdmabench::detail
