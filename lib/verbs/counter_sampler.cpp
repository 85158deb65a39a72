#include "rdmabench/verbs/counter_sampler.hpp"

#include <numeric>

namespace rdmabench {

CounterSeries counter_series(const std::vector<CounterSnapshot>& snapshots, const std::vector<double>& at_ms,
                             double interval_ms) {
  CounterSeries s;
  s.interval_ms = interval_ms;
  if (snapshots.size() < 2) return s;
  for (std::size_t k = 1; k < at_ms.size(); ++k) s.ends_ms.push_back(at_ms[k] - at_ms.front());
  for (const auto& [name, first] : snapshots.front().values) {
    std::vector<std::uint64_t> deltas;
    std::uint64_t previous = first;
    bool whole = true;
    for (std::size_t k = 1; k < snapshots.size() && whole; ++k) {
      const auto it = snapshots[k].values.find(name);
      whole = it != snapshots[k].values.end() && it->second >= previous;
      if (whole) deltas.push_back(it->second - previous), previous = it->second;
    }
    if (whole && std::accumulate(deltas.begin(), deltas.end(), std::uint64_t{0}) > 0)
      s.moved.emplace(name, std::move(deltas));
  }
  return s;
}

CounterSampler::CounterSampler(std::string device, int port, std::chrono::milliseconds interval)
    : device_(std::move(device)), port_(port), interval_(interval), origin_(std::chrono::steady_clock::now()) {
  read_now();
  thread_ = std::thread([this] { run(); });
}

CounterSampler::~CounterSampler() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CounterSampler::read_now() {
  auto snapshot = read_port_counters(device_, port_);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - origin_).count();
  std::lock_guard lock(mutex_);
  snapshots_.push_back(std::move(snapshot));
  at_ms_.push_back(ms);
}

void CounterSampler::run() {
  auto next = origin_ + interval_;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_until(lock, next, [this] { return stop_; })) {
    lock.unlock();
    read_now();
    lock.lock();
    next += interval_;
  }
}

CounterSeries CounterSampler::finish() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  read_now();
  return counter_series(snapshots_, at_ms_, static_cast<double>(interval_.count()));
}

}  // namespace rdmabench
