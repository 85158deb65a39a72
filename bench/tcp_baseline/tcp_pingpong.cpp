// The pingpong client: round trips of one message on one connection, every
// one timed; the library's statistics give the percentiles.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/report/report.hpp"
#include "rdmabench/stats/stats.hpp"
#include "rdmabench/version.hpp"
#include "tcp_baseline/session_protocol.hpp"
#include "tcp_baseline/socket_io.hpp"
#include "tcp_baseline/tcp_measurement.hpp"

namespace rdmabench::tcp {

RunContext tcp_context(const Options& o, const char* test) {
  RunContext c;
  c.test = test;
  c.role = "client";
  c.version = kVersion;
  c.transport = "TCP";
  c.connection = fmt::format("TCP, {} connection{}", o.streams, o.streams > 1 ? "s" : "");
  c.peer = o.server;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  c.host = host;
  c.clock = "std::chrono::steady_clock";
  // As the pair binaries' records (engine.cpp): an id of this run, and when
  // it started. The server keeps no record, so the id is the client's alone.
  c.run_id = new_run_id();
  c.started_utc = utc_now_text();
  return c;
}

namespace {

/// One-way latency (round trip / 2) of each timed round trip, in usec.
std::vector<double> time_round_trips(const Options& o, int fd) {
  using Clock = std::chrono::steady_clock;
  std::vector<std::uint8_t> buffer(o.size, 0x5a);
  std::vector<double> samples;
  samples.reserve(o.iterations);
  for (std::uint64_t i = 0; i < o.warmup + o.iterations; ++i) {
    const auto start = Clock::now();
    send_all(fd, buffer.data(), o.size, o.timeout);
    receive_all(fd, buffer.data(), o.size, o.timeout);
    const std::chrono::duration<double, std::micro> rtt = Clock::now() - start;
    if (i >= o.warmup) samples.push_back(rtt.count() / 2);
  }
  return samples;
}

}  // namespace

Measurement run_pingpong(const Options& o, ControlChannel& control, std::vector<ControlChannel>& data) {
  const CpuSnapshot before = take_cpu_snapshot();
  std::vector<double> samples = time_round_trips(o, data[0].fd());
  const std::uint64_t bytes = 2 * o.size * (o.warmup + o.iterations);
  const CpuUsage client_cpu = cpu_usage_between(before, take_cpu_snapshot(), bytes);
  Summary summary = receive_summary(control.fd(), o.timeout);
  if (summary.bytes != bytes) throw Error("server echoed a different byte count than was sent");
  Measurement m;
  m.result.bytes = o.size;
  m.result.iterations = o.iterations;
  m.result.warmup = static_cast<std::uint32_t>(o.warmup);
  m.result.latency = summarize_latency(samples);
  m.result.latency_samples_us = std::move(samples);
  m.result.cpu_client = client_cpu;
  m.context = tcp_context(o, "tcp_pingpong");
  m.context.latency_kind = kOneWayLatency;
  m.server_cpu = std::move(summary.cpu);
  return m;
}

}  // namespace rdmabench::tcp
