#include "loops/load_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/verbs/error.hpp"
#include "loops/loop_kit.hpp"
#include "loops/loop_table.hpp"

namespace rdmabench::detail {

LoadStream::LoadStream(const LoopView& v) : v_(v), origin_(std::chrono::steady_clock::now()) {
  const LoadOp op = v.spec.load_op;
  sge_.addr = reinterpret_cast<std::uint64_t>(v.load.local_buffer.data());
  sge_.length = static_cast<std::uint32_t>(v.spec.load_size);
  sge_.lkey = v.load.local_mr->lkey;
  wr_.sg_list = &sge_;
  wr_.num_sge = 1;
  wr_.opcode = op == LoadOp::read ? IBV_WR_RDMA_READ : op == LoadOp::send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
  // Every message signaled: the thread reposts on each completion, and a
  // load message is large enough that a completion each costs little.
  wr_.send_flags = IBV_SEND_SIGNALED;
  if (op != LoadOp::send) {  // a send lands in a receive the server posted (loops/load_receives.hpp)
    wr_.wr.rdma.remote_addr = v.load.remote.address;
    wr_.wr.rdma.rkey = v.load.remote.rkey;
  }
  thread_ = std::thread([this] { run(); });
  while (!primed_.load(std::memory_order_acquire)) std::this_thread::yield();
}

LoadStream::~LoadStream() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

double LoadStream::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count();
}

void LoadStream::run() {
  leave_a_pinned_cpu();
  try {
    stream();
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  primed_.store(true, std::memory_order_release);  // a failed start must not hold the caller
}

void LoadStream::post(std::size_t qp) {
  ibv_send_wr wr = wr_;
  wr.wr_id = qp;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(v_.load.qps[qp].get(), &wr, &bad); rc != 0)
    throw_system_error(fmt::format("posting a load {} on load queue pair {}", to_string(v_.spec.load_op), qp + 1), rc);
}

void LoadStream::stream() {
  // Every queue is filled once and each completion reposted at once, so
  // kDepth stay in flight per queue pair until the stop.
  const std::size_t qps = v_.load.qps.size();
  edges_.push_back({seconds(), 0});
  for (std::size_t q = 0; q < qps; ++q)
    for (std::uint32_t k = 0; k < LoadPlan::kDepth; ++k) post(q);
  primed_.store(true, std::memory_order_release);
  std::uint64_t bytes = 0;
  double next_edge = edges_.front().seconds + kIntervalSeconds;
  std::array<ibv_wc, 32> wcs;
  while (!stop_.load(std::memory_order_relaxed)) {
    const int got = ibv_poll_cq(v_.load.cq.get(), static_cast<int>(wcs.size()), wcs.data());
    if (got < 0) throw Error("ibv_poll_cq failed on the load's completion queue");
    for (int k = 0; k < got; ++k) {
      const ibv_wc& wc = wcs[static_cast<std::size_t>(k)];
      if (wc.status != IBV_WC_SUCCESS)
        throw Error(fmt::format("a load {} on load queue pair {} completed with {}",
                                to_string(v_.spec.load_op), wc.wr_id + 1, ibv_wc_status_str(wc.status)));
      bytes += v_.spec.load_size;
      post(wc.wr_id);
    }
    const double now = seconds();
    if (now < next_edge) continue;
    edges_.push_back({now, bytes});
    next_edge = std::max(next_edge + kIntervalSeconds, now);  // a late edge does not bunch the next ones
  }
  edges_.push_back({seconds(), bytes});
  drain(qps * LoadPlan::kDepth);
}

/// Waits for what is still in flight, so that the next size or the teardown
/// finds the load queue pairs idle.
void LoadStream::drain(std::uint64_t left) {
  const double deadline = seconds() + std::chrono::duration<double>(v_.timeout).count();
  std::array<ibv_wc, 32> wcs;
  while (left) {
    const int got = ibv_poll_cq(v_.load.cq.get(), static_cast<int>(wcs.size()), wcs.data());
    if (got < 0) throw Error("ibv_poll_cq failed on the load's completion queue");
    for (int k = 0; k < got; ++k)
      if (wcs[static_cast<std::size_t>(k)].status != IBV_WC_SUCCESS)
        throw Error(fmt::format("a load {} completed with {} while the load stopped", to_string(v_.spec.load_op),
                                ibv_wc_status_str(wcs[static_cast<std::size_t>(k)].status)));
    left -= static_cast<std::uint64_t>(got);
    if (left && seconds() > deadline)
      throw Error(fmt::format("{} load messages were still in flight {} ms after the load stopped", left,
                              v_.timeout.count()),
                  "the server or the link is stuck; raise --timeout if it is merely slow");
  }
}

LoadFigures LoadStream::stop(double start_s, double end_s) {
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
  if (!error_.empty()) throw Error("the load (--load-qps): " + error_);
  const IntervalRate rate = interval_rate(edges_, start_s, end_s);
  return LoadFigures{v_.spec.load_queue_pairs, to_string(v_.spec.load_op), v_.spec.load_size,
                     rate.mean_gbps,           rate.stdev_gbps,              rate.intervals};
}

SizeResult measure_under_load(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  if (v.role != Role::client || v.load.qps.empty()) return measure(v, bytes, clock);
  LoadStream load(v);
  const double start = load.seconds();
  SizeResult result = measure(v, bytes, clock);
  const double end = load.seconds();
  result.load = load.stop(start, end);
  return result;
}

}  // namespace rdmabench::detail
