#pragma once
// A port's counters per interval of a run, read on a thread of their own
// (never in the timed loop): which interval a sequence error, a retry or a
// CNP fell in, beside the bandwidth of the same stretch of time.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rdmabench/verbs/port_counters.hpp"

namespace rdmabench {

/// The deltas between consecutive `snapshots` taken at `at_ms`, for each
/// counter read every time whose total moved; one that went backwards
/// (reset) is left out, as counter_deltas does.
CounterSeries counter_series(const std::vector<CounterSnapshot>& snapshots, const std::vector<double>& at_ms,
                             double interval_ms);

class CounterSampler {
 public:
  /// Reads `device` port `port` now and then every `interval` until finish().
  CounterSampler(std::string device, int port, std::chrono::milliseconds interval);
  ~CounterSampler();
  CounterSampler(const CounterSampler&) = delete;
  CounterSampler& operator=(const CounterSampler&) = delete;

  /// Stops, reads once more (the last, partial interval) and gives the series.
  CounterSeries finish();

 private:
  void run();
  void read_now();

  std::string device_;
  int port_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point origin_;
  std::vector<CounterSnapshot> snapshots_;
  std::vector<double> at_ms_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rdmabench
