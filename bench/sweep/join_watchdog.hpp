#pragma once
// A bound on joining the MPI job. MPI_Init and the communicators after it
// wait for every rank, with no deadline of their own: a rank stopped
// (SIGSTOP) or stuck before it joins would hold the others there for ever.
// The watchdog ends this rank instead, and mpirun or srun then ends the job.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace rdmabench::sweep_cli {

class JoinWatchdog {
 public:
  /// Calls `expired` from its own thread unless disarm() comes within `seconds`.
  JoinWatchdog(double seconds, std::function<void()> expired);
  ~JoinWatchdog();  ///< disarms
  JoinWatchdog(const JoinWatchdog&) = delete;
  JoinWatchdog& operator=(const JoinWatchdog&) = delete;

  /// The rank joined: `expired` will not be called.
  void disarm();

 private:
  std::mutex lock_;
  std::condition_variable joined_;
  bool disarmed_ = false;
  std::thread thread_;
};

/// What the watchdog allows: --timeout (the default when the command line
/// does not parse, which the ranks then report) plus 30 s for MPI's start
/// and for opening the device.
double join_limit_seconds(int argc, char** argv);

}  // namespace rdmabench::sweep_cli
