// The stream client: one sending thread per connection for the duration,
// the bytes handed to the kernel sampled at each interval's edge; the
// average is what the server received.
#include <fmt/format.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "tcp_baseline/session_protocol.hpp"
#include "tcp_baseline/socket_io.hpp"
#include "tcp_baseline/stream_intervals.hpp"
#include "tcp_baseline/tcp_measurement.hpp"

namespace rdmabench::tcp {

namespace {

using StreamClock = std::chrono::steady_clock;

/// One sender per data connection until stop(); each shuts its connection
/// down for writing when it ends, which ends the server's reader.
class Senders {
 public:
  Senders(const Options& o, std::vector<ControlChannel>& data) : sent_(data.size()), errors_(data.size()) {
    for (std::size_t i = 0; i < data.size(); ++i)
      threads_.emplace_back([this, &o, fd = data[i].fd(), i] { send_until_stopped(o, fd, i); });
  }
  ~Senders() { stop(); }
  Senders(const Senders&) = delete;
  Senders& operator=(const Senders&) = delete;

  std::uint64_t bytes_sent() const {
    std::uint64_t total = 0;
    for (const auto& c : sent_) total += c.bytes.load(std::memory_order_relaxed);
    return total;
  }
  /// Stops and joins every sender.
  void stop() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  /// The first failed sender's error, if any.
  void rethrow_errors() const {
    for (const auto& e : errors_)
      if (!e.empty()) throw Error("stream: " + e);
  }

 private:
  void send_until_stopped(const Options& o, int fd, std::size_t i) {
    std::vector<std::uint8_t> buffer(o.size, 0x5a);
    try {
      while (!stop_.load(std::memory_order_relaxed)) {
        send_all(fd, buffer.data(), o.size, o.timeout);
        sent_[i].bytes.fetch_add(o.size, std::memory_order_relaxed);
      }
    } catch (const std::exception& e) {
      errors_[i] = e.what();
    }
    ::shutdown(fd, SHUT_WR);
  }

  struct alignas(64) Counter {
    std::atomic<std::uint64_t> bytes{0};
  };
  std::vector<Counter> sent_;
  std::vector<std::string> errors_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

StreamClock::duration seconds_of(double s) {
  return std::chrono::duration_cast<StreamClock::duration>(std::chrono::duration<double>(s));
}

/// The bytes sent at `start` (none) and at each interval's edge until the
/// duration is over.
std::vector<RateEdge> sample_edges(const Options& o, const Senders& senders, StreamClock::time_point start) {
  std::vector<RateEdge> edges{{0, 0}};
  const StreamClock::time_point end = start + seconds_of(o.duration_s);
  for (auto mark = start; mark < end;) {
    std::this_thread::sleep_until(std::min(end, mark + seconds_of(o.interval_s)));
    mark = StreamClock::now();
    edges.push_back({std::chrono::duration<double>(mark - start).count(), senders.bytes_sent()});
  }
  return edges;
}

}  // namespace

Measurement run_stream(const Options& o, ControlChannel& control, std::vector<ControlChannel>& data) {
  const CpuSnapshot before = take_cpu_snapshot();
  const auto start = StreamClock::now();
  Senders senders(o, data);
  const IntervalFigures figures = interval_figures(sample_edges(o, senders, start));
  senders.stop();
  senders.rethrow_errors();
  const std::uint64_t sent = senders.bytes_sent();
  const CpuUsage client_cpu = cpu_usage_between(before, take_cpu_snapshot(), sent);
  Summary summary = receive_summary(control.fd(), o.timeout);
  const double seconds = std::chrono::duration<double>(StreamClock::now() - start).count();
  if (summary.bytes != sent)
    throw Error(fmt::format("server received {} bytes of the {} sent", summary.bytes, sent));
  Measurement m;
  m.result.bytes = o.size;
  m.result.iterations = sent / o.size;
  BandwidthFigures& b = m.result.bandwidth.emplace();
  b.seconds = seconds;
  b.peak_mb_per_s = figures.best_mb_per_s;
  b.average_mb_per_s = static_cast<double>(summary.bytes) / seconds / 1e6;
  b.message_rate_mpps = static_cast<double>(m.result.iterations) / seconds / 1e6;
  m.result.cpu_client = client_cpu;
  m.context = tcp_context(o, "tcp_stream");
  m.server_cpu = std::move(summary.cpu);
  m.streams = o.streams;
  m.intervals = figures.intervals;
  return m;
}

}  // namespace rdmabench::tcp
