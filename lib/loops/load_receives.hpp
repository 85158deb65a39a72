#pragma once
// The server's half of a send load (--load-op send). The client's load
// thread sends on every load queue pair, and each send needs a receive
// posted before it arrives: iWARP drops the connection otherwise, and RoCE
// stalls the sender in receiver-not-ready retries, which would make the
// load a measure of our reposting rather than of the fabric. So for the
// whole run a thread of the server's own keeps LoadPlan::kReceiveDepth
// receives posted on every load QP, reposting each as its message lands.
// It measures nothing; the client reports the load's bandwidth.
// The load's queue pairs keep receive queues of their own even with
// --use-srq: the shared queue is the measured test's, whose receives are
// sized for its messages and reaped by its own loop on another CQ.

#include <atomic>
#include <string>
#include <thread>

#include "loops/loop_view.hpp"

namespace rdmabench::detail {

class LoadReceives {
 public:
  /// Posts every load QP's receives (before the first barrier lets the
  /// client send), then starts the thread.
  explicit LoadReceives(const LoopView& view);
  /// Stops and joins the thread if finish() was not called (an error path).
  ~LoadReceives();
  LoadReceives(const LoadReceives&) = delete;
  LoadReceives& operator=(const LoadReceives&) = delete;

  /// Stops the thread; throws what it met (a receive that failed).
  void finish();

 private:
  void run();
  void post(std::size_t qp);

  const LoopView v_;
  ibv_recv_wr wr_{};
  ibv_sge sge_{};
  std::atomic<bool> stop_{false};
  std::string error_;  // written by the thread only, read after it is joined
  std::thread thread_;
};

}  // namespace rdmabench::detail
