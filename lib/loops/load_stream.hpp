#pragma once
// The background load of a latency test (--load-qps): a thread of its own
// keeps every load queue pair's send queue full of writes, reads or sends until it
// is told to stop, and notes the bytes completed at 100 ms edges.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "loops/loop_view.hpp"
#include "rdmabench/report/result.hpp"
#include "rdmabench/stats/interval_rate.hpp"

namespace rdmabench::detail {

class LoadStream {
 public:
  /// How often the thread notes the bytes completed so far.
  static constexpr double kIntervalSeconds = 0.1;

  /// Starts the thread; returns once every load queue pair has its queue
  /// full (or the thread failed, which stop() then reports).
  explicit LoadStream(const LoopView& view);
  /// Stops and joins the thread if stop() was not called (an error path).
  ~LoadStream();
  LoadStream(const LoadStream&) = delete;
  LoadStream& operator=(const LoadStream&) = delete;

  /// Seconds since the stream started (the clock of the edges).
  double seconds() const;

  /// Stops the load, waits until its queues are empty, and gives its
  /// bandwidth over the intervals inside [start_s, end_s]. Throws when a
  /// load operation failed.
  LoadFigures stop(double start_s, double end_s);

 private:
  void run();
  void stream();
  void post(std::size_t qp);
  void drain(std::uint64_t in_flight);

  const LoopView v_;
  const std::chrono::steady_clock::time_point origin_;
  ibv_send_wr wr_{};
  ibv_sge sge_{};
  std::atomic<bool> stop_{false};
  std::atomic<bool> primed_{false};
  // Written by the thread only, read after it is joined.
  std::vector<RateEdge> edges_;
  std::string error_;
  std::thread thread_;
};

}  // namespace rdmabench::detail
