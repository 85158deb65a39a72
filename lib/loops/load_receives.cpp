#include "loops/load_receives.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>

#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

LoadReceives::LoadReceives(const LoopView& v) : v_(v) {
  // Every receive lands in the same buffer: what a load carries is never read.
  sge_.addr = reinterpret_cast<std::uint64_t>(v.load.exposed_buffer.data());
  sge_.length = static_cast<std::uint32_t>(v.spec.load_size);
  sge_.lkey = v.load.exposed_mr->lkey;
  wr_.sg_list = &sge_;
  wr_.num_sge = 1;
  for (std::size_t q = 0; q < v.load.qps.size(); ++q)
    for (std::uint32_t k = 0; k < LoadPlan::kReceiveDepth; ++k) post(q);
  thread_ = std::thread([this] { run(); });
}

LoadReceives::~LoadReceives() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

void LoadReceives::finish() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
  if (!error_.empty()) throw Error("the load (--load-op send): " + error_);
}

void LoadReceives::post(std::size_t qp) {
  ibv_recv_wr wr = wr_;
  wr.wr_id = qp;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(v_.load.qps[qp].get(), &wr, &bad); rc != 0)
    throw_system_error(fmt::format("posting a receive on load queue pair {}", qp + 1), rc);
}

void LoadReceives::run() {
  // An empty poll naps: the load is large messages (64 KiB by default), so
  // a 50 us nap lets at most a few land per queue pair against kReceiveDepth
  // posted, and the server's latency thread keeps its CPU.
  constexpr auto kNap = std::chrono::microseconds(50);
  std::array<ibv_wc, 32> wcs;
  leave_a_pinned_cpu();
  try {
    while (!stop_.load(std::memory_order_relaxed)) {
      const int got = ibv_poll_cq(v_.load.cq.get(), static_cast<int>(wcs.size()), wcs.data());
      if (got < 0) throw Error("ibv_poll_cq failed on the load's completion queue");
      if (got == 0) std::this_thread::sleep_for(kNap);
      for (int k = 0; k < got; ++k) {
        const ibv_wc& wc = wcs[static_cast<std::size_t>(k)];
        // A flushed receive means its queue pair is going down (the client
        // closed its connections at the end, or vanished): nothing to
        // repost, and the control path says whether the peer is gone.
        if (wc.status == IBV_WC_WR_FLUSH_ERR) continue;
        if (wc.status != IBV_WC_SUCCESS)
          throw Error(fmt::format("a load receive on load queue pair {} completed with {}", wc.wr_id + 1,
                                  ibv_wc_status_str(wc.status)));
        post(wc.wr_id);
      }
    }
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

}  // namespace rdmabench::detail
