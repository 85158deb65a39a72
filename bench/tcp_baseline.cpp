// tcp_baseline: what the same link does without RDMA. TCP streaming bandwidth
// with 1..N connections (per-interval figures, for stability) and a ping-pong
// latency test, reported with the library's JSON schema so that a script
// reads TCP and RDMA results the same way. Server/client like our RDMA
// binaries: no address = server (one session, then exit).
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include "cli/options.hpp"
#include "cli/ready_file.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/system/cpu_usage.hpp"
#include "rdmabench/report/report.hpp"
#include "rdmabench/stats/stats.hpp"
#include "rdmabench/version.hpp"

namespace {

using namespace rdmabench;
namespace po = boost::program_options;
using SteadyClock = std::chrono::steady_clock;

constexpr std::uint32_t kMagic = 0x52425443;  // "RBTC"
constexpr std::uint32_t kProtocolVersion = 1;
enum class Test : std::uint32_t { stream = 1, pingpong = 2 };

struct Options {
  std::string server;  ///< empty: be the server
  std::uint16_t port = 18600;
  Test test = Test::stream;
  std::uint32_t streams = 1;
  std::uint64_t size = 65536;
  std::uint64_t iterations = 10000;  ///< ping-pong round trips (timed)
  std::uint64_t warmup = 100;        ///< ping-pong round trips (untimed)
  double duration_s = 5, interval_s = 0.5;
  Milliseconds timeout{10000};
  std::string json_path, samples_path;
  std::string ready_file;  ///< server: written once it listens (cli/ready_file.hpp)
};

/// Buffers of all streams together, on either side (1 GiB).
constexpr std::uint64_t kMaxBytesInFlight = std::uint64_t{1} << 30;

/// The session header, fixed-size and big-endian.
struct Header {
  std::uint32_t test = 0, streams = 0;
  std::uint64_t size = 0, round_trips = 0;
};

// --- byte-level I/O on a socket, every wait bounded by the timeout --------

void wait_ready(int fd, short events, Milliseconds timeout, const char* what) {
  pollfd p{fd, events, 0};
  int rc;
  do rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  while (rc < 0 && errno == EINTR);
  if (rc == 0) throw Error(fmt::format("timed out after {} ms {}", timeout.count(), what));
  if (rc < 0) throw_system_error("poll", errno);
}

void send_all(int fd, const void* data, std::size_t length, Milliseconds timeout) {
  auto* p = static_cast<const std::uint8_t*>(data);
  while (length > 0) {
    wait_ready(fd, POLLOUT, timeout, "sending to the peer");
    const ssize_t n = ::send(fd, p, length, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("send failed: {}", std::strerror(errno)), "the peer exited");
    p += n;
    length -= static_cast<std::size_t>(n);
  }
}

/// Reads up to `length` bytes; returns how many (0 only at end of stream).
std::size_t receive_some(int fd, void* data, std::size_t length, Milliseconds timeout) {
  for (;;) {
    wait_ready(fd, POLLIN, timeout, "waiting for the peer");
    const ssize_t n = ::recv(fd, data, length, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("recv failed: {}", std::strerror(errno)), "the peer exited");
    return static_cast<std::size_t>(n);
  }
}

void receive_all(int fd, void* data, std::size_t length, Milliseconds timeout) {
  auto* p = static_cast<std::uint8_t*>(data);
  while (length > 0) {
    const std::size_t n = receive_some(fd, p, length, timeout);
    if (n == 0) throw Error("the peer closed the connection mid-message");
    p += n;
    length -= n;
  }
}

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

void send_header(int fd, const Header& h, Milliseconds timeout) {
  std::vector<std::uint8_t> out;
  put_u64(out, std::uint64_t{kMagic} << 32 | kProtocolVersion);
  put_u64(out, std::uint64_t{h.test} << 32 | h.streams);
  put_u64(out, h.size);
  put_u64(out, h.round_trips);
  send_all(fd, out.data(), out.size(), timeout);
}

Header receive_header(int fd, Milliseconds timeout) {
  std::uint8_t in[32];
  receive_all(fd, in, sizeof in, timeout);
  const std::uint64_t magic = get_u64(in);
  if (magic >> 32 != kMagic || (magic & 0xffffffff) != kProtocolVersion)
    throw Error("the client is not a tcp_baseline of this version (bad session header)");
  Header h;
  h.test = static_cast<std::uint32_t>(get_u64(in + 8) >> 32);
  h.streams = static_cast<std::uint32_t>(get_u64(in + 8));
  h.size = get_u64(in + 16);
  h.round_trips = get_u64(in + 24);
  // Each stream gets a buffer of `size`: bound what one header can make the
  // server allocate, as the client's options do.
  if ((h.test != 1 && h.test != 2) || h.streams < 1 || h.streams > 64 || h.size < 1 ||
      h.size > kMaxBytesInFlight || h.streams * h.size > kMaxBytesInFlight)
    throw Error(fmt::format("session header out of range (test {}, {} streams, {} bytes)", h.test,
                            h.streams, h.size));
  return h;
}

/// The server's closing message: bytes it received and its CPU usage.
void send_summary(int fd, std::uint64_t bytes, const CpuUsage& cpu, Milliseconds timeout) {
  const std::string text = to_json(cpu).dump();
  std::vector<std::uint8_t> out;
  put_u64(out, bytes);
  put_u64(out, text.size());
  out.insert(out.end(), text.begin(), text.end());
  send_all(fd, out.data(), out.size(), timeout);
}

std::pair<std::uint64_t, nlohmann::json> receive_summary(int fd, Milliseconds timeout) {
  std::uint8_t head[16];
  receive_all(fd, head, sizeof head, timeout);
  const std::uint64_t length = get_u64(head + 8);
  if (length > 65536) throw Error("server summary too long: not a tcp_baseline server?");
  std::string text(length, '\0');
  receive_all(fd, text.data(), length, timeout);
  return {get_u64(head), nlohmann::json::parse(text)};
}

// --- server ----------------------------------------------------------------

int serve(const Options& o) {
  ControlListener listener(o.port);
  // For people; scripts wait for --ready-file instead of reading this.
  std::cerr << fmt::format("tcp_baseline: waiting for a client on TCP port {}", o.port) << std::endl;
  if (!o.ready_file.empty()) cli::write_ready_file(o.ready_file, o.port);
  ControlChannel control = listener.accept(Milliseconds(0));
  const Header h = receive_header(control.fd(), o.timeout);
  std::vector<ControlChannel> data;
  for (std::uint32_t i = 0; i < h.streams; ++i) data.push_back(listener.accept(o.timeout));
  std::vector<std::uint64_t> received(h.streams, 0);
  const CpuSnapshot before = take_cpu_snapshot();
  if (static_cast<Test>(h.test) == Test::pingpong) {
    std::vector<std::uint8_t> buffer(h.size);
    for (std::uint64_t i = 0; i < h.round_trips; ++i) {
      receive_all(data[0].fd(), buffer.data(), h.size, o.timeout);
      send_all(data[0].fd(), buffer.data(), h.size, o.timeout);
    }
    received[0] = 2 * h.size * h.round_trips;  // both directions, as the client counts
  } else {
    std::vector<std::thread> readers;
    std::vector<std::string> errors(h.streams);
    for (std::uint32_t i = 0; i < h.streams; ++i)
      readers.emplace_back([&, i] {
        std::vector<std::uint8_t> buffer(std::max<std::uint64_t>(h.size, 1 << 16));
        try {
          while (std::size_t n = receive_some(data[i].fd(), buffer.data(), buffer.size(), o.timeout))
            received[i] += n;
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    for (auto& t : readers) t.join();
    for (const auto& e : errors)
      if (!e.empty()) throw Error("stream: " + e);
  }
  std::uint64_t total = 0;
  for (auto n : received) total += n;
  send_summary(control.fd(), total, cpu_usage_between(before, take_cpu_snapshot(), total), o.timeout);
  return 0;
}

// --- client ----------------------------------------------------------------

RunContext context_for(const Options& o, const char* test) {
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
  return c;
}

nlohmann::json run_pingpong(const Options& o, ControlChannel& control, std::vector<ControlChannel>& data) {
  std::vector<std::uint8_t> buffer(o.size, 0x5a);
  std::vector<double> samples;
  samples.reserve(o.iterations);
  const int fd = data[0].fd();
  const CpuSnapshot before = take_cpu_snapshot();
  for (std::uint64_t i = 0; i < o.warmup + o.iterations; ++i) {
    const auto start = SteadyClock::now();
    send_all(fd, buffer.data(), o.size, o.timeout);
    receive_all(fd, buffer.data(), o.size, o.timeout);
    const std::chrono::duration<double, std::micro> rtt = SteadyClock::now() - start;
    if (i >= o.warmup) samples.push_back(rtt.count() / 2);
  }
  const std::uint64_t bytes = 2 * o.size * (o.warmup + o.iterations);
  const CpuUsage client_cpu = cpu_usage_between(before, take_cpu_snapshot(), bytes);
  auto [server_bytes, server_cpu] = receive_summary(control.fd(), o.timeout);
  if (server_bytes != bytes) throw Error("server echoed a different byte count than was sent");
  SizeResult r;
  r.bytes = o.size;
  r.iterations = o.iterations;
  r.warmup = static_cast<std::uint32_t>(o.warmup);
  r.latency = summarize_latency(samples);
  r.latency_samples_us = std::move(samples);
  r.cpu_client = client_cpu;
  RunContext c = context_for(o, "tcp_pingpong");
  c.latency_kind = "one-way (round trip / 2)";
  if (!o.samples_path.empty()) {
    std::ofstream out(o.samples_path);
    if (!out) throw Error(fmt::format("cannot write --dump-samples file '{}'", o.samples_path));
    auto reporter = make_samples_reporter(out);
    reporter->begin(c);
    reporter->size_done(r);
    reporter->end();
  }
  auto j = to_json(r, c);
  j["cpu"]["server"] = server_cpu;
  return j;
}

nlohmann::json run_stream(const Options& o, ControlChannel& control, std::vector<ControlChannel>& data) {
  struct alignas(64) Counter { std::atomic<std::uint64_t> bytes{0}; };
  std::vector<Counter> sent(o.streams);
  std::atomic<bool> stop{false};
  std::vector<std::string> errors(o.streams);
  const CpuSnapshot before = take_cpu_snapshot();
  const auto start = SteadyClock::now();
  std::vector<std::thread> senders;
  for (std::uint32_t i = 0; i < o.streams; ++i)
    senders.emplace_back([&, i] {
      std::vector<std::uint8_t> buffer(o.size, 0x5a);
      try {
        while (!stop.load(std::memory_order_relaxed)) {
          send_all(data[i].fd(), buffer.data(), o.size, o.timeout);
          sent[i].bytes.fetch_add(o.size, std::memory_order_relaxed);
        }
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
      ::shutdown(data[i].fd(), SHUT_WR);
    });
  // Interval figures are counted at the sender (bytes handed to the kernel);
  // the average below is what the server received.
  nlohmann::json intervals = nlohmann::json::array();
  std::uint64_t last = 0;
  double best = 0;
  auto mark = start;
  const auto seconds_of = [](double s) {
    return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
  };
  const SteadyClock::time_point end = start + seconds_of(o.duration_s);
  while (mark < end) {
    const SteadyClock::time_point next = std::min(end, mark + seconds_of(o.interval_s));
    std::this_thread::sleep_until(next);
    const auto now = SteadyClock::now();
    std::uint64_t total = 0;
    for (auto& c : sent) total += c.bytes.load(std::memory_order_relaxed);
    const double seconds = std::chrono::duration<double>(now - mark).count();
    const double mbps = static_cast<double>(total - last) / seconds / 1e6;
    best = std::max(best, mbps);
    intervals.push_back({{"seconds", seconds}, {"MBps", mbps}});
    last = total;
    mark = now;
  }
  stop = true;
  for (auto& t : senders) t.join();
  for (const auto& e : errors)
    if (!e.empty()) throw Error("stream: " + e);
  std::uint64_t sent_total = 0;
  for (auto& c : sent) sent_total += c.bytes.load();
  const CpuUsage client_cpu = cpu_usage_between(before, take_cpu_snapshot(), sent_total);
  auto [received, server_cpu] = receive_summary(control.fd(), o.timeout);
  const double seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  if (received != sent_total)
    throw Error(fmt::format("server received {} bytes of the {} sent", received, sent_total));
  SizeResult r;
  r.bytes = o.size;
  r.iterations = sent_total / o.size;
  r.bandwidth.emplace();
  r.bandwidth->seconds = seconds;
  r.bandwidth->peak_mb_per_s = best;
  r.bandwidth->average_mb_per_s = static_cast<double>(received) / seconds / 1e6;
  r.bandwidth->message_rate_mpps = static_cast<double>(r.iterations) / seconds / 1e6;
  r.cpu_client = client_cpu;
  auto j = to_json(r, context_for(o, "tcp_stream"));
  j["cpu"]["server"] = server_cpu;
  j["streams"] = o.streams;
  j["intervals"] = intervals;
  j["bandwidth"]["average_note"] = "bytes the server received / seconds from the first send to its summary";
  return j;
}

int run_client(const Options& o) {
  ControlChannel control = connect_control(o.server, o.port, o.timeout);
  const std::uint32_t connections = o.test == Test::pingpong ? 1 : o.streams;
  send_header(control.fd(),
              {static_cast<std::uint32_t>(o.test), connections, o.size, o.warmup + o.iterations},
              o.timeout);
  std::vector<ControlChannel> data;
  for (std::uint32_t i = 0; i < connections; ++i) data.push_back(connect_control(o.server, o.port, o.timeout));
  const nlohmann::json j = o.test == Test::pingpong ? run_pingpong(o, control, data) : run_stream(o, control, data);
  if (j.contains("latency"))
    std::cout << fmt::format("tcp pingpong {} B: median {:.2f} usec, p99 {:.2f}, p99.9 {:.2f} ({} samples)\n",
                             o.size, j["latency"]["median"].get<double>(), j["latency"]["p99"].get<double>(),
                             j["latency"]["p99_9"].get<double>(), o.iterations);
  else
    std::cout << fmt::format("tcp stream {} B x {}: {:.1f} MB/s average, {:.1f} MB/s best interval\n", o.size,
                             o.streams, j["bandwidth"]["average_MBps"].get<double>(),
                             j["bandwidth"]["peak_MBps"].get<double>());
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    if (!(out << j.dump() << '\n')) throw Error(fmt::format("cannot write --json file '{}'", o.json_path));
  }
  return 0;
}

Options parse(int argc, char** argv, bool& help) {
  Options o;
  std::string test = "stream", size = "64K";
  long long port = o.port, streams = 1, iterations = 10000, warmup = 100;
  double timeout_s = 10;
  po::options_description d("Options");
  d.add_options()
      ("help,h", po::bool_switch(&help), "show this help")
      ("version", "show the version and the rdma-core it was built against")
      ("port,p", po::value(&port), "TCP port (default 18600)")
      ("test", po::value(&test), "stream (bandwidth, default) or pingpong (latency)")
      ("size,s", po::value(&size), "message size in bytes, K/M/G suffixes (default 64K)")
      ("streams", po::value(&streams), "stream: parallel connections, 1-64 (default 1)")
      ("duration", po::value(&o.duration_s), "stream: seconds to send (default 5)")
      ("interval", po::value(&o.interval_s), "stream: seconds per reported interval (default 0.5)")
      ("iters,n", po::value(&iterations), "pingpong: timed round trips (default 10000)")
      ("warmup", po::value(&warmup), "pingpong: untimed round trips first (default 100)")
      ("timeout", po::value(&timeout_s), "seconds to wait for the peer (default 10)")
      ("json", po::value(&o.json_path), "write the result as one JSON line to FILE")
      ("dump-samples", po::value(&o.samples_path), "pingpong: every latency sample (usec) to FILE")
      ("ready-file", po::value(&o.ready_file),
       "server: once listening, write one JSON line {\"ready\": true, ...} to FILE");
  po::options_description hidden;
  hidden.add_options()("server", po::value(&o.server));
  po::options_description all;
  all.add(d).add(hidden);
  po::positional_options_description positional;
  positional.add("server", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw cli::UsageError(e.what());
  }
  if (vm.count("version")) {
    print_version("tcp_baseline");
    help = true;  // nothing to run
    return o;
  }
  if (help) {
    std::cout << "Usage: tcp_baseline [options]            (server: one session, then exit)\n"
                 "       tcp_baseline [options] SERVER     (client)\n" << d;
    return o;
  }
  auto range = [](const char* name, auto v, auto lo, auto hi) {
    if (!(v >= lo && v <= hi)) throw cli::UsageError(fmt::format("{} {} is out of range: expected {} to {}", name, v, lo, hi));
  };
  range("-p/--port", port, 1LL, 65535LL);
  range("--streams", streams, 1LL, 64LL);
  range("-n/--iters", iterations, 1LL, 100'000'000LL);
  range("--warmup", warmup, 0LL, 100'000'000LL);
  range("--duration", o.duration_s, 0.1, 3600.0);
  range("--interval", o.interval_s, 0.01, o.duration_s);
  range("--timeout", timeout_s, 0.001, 86400.0);
  if (test == "stream") o.test = Test::stream;
  else if (test == "pingpong") o.test = Test::pingpong;
  else throw cli::UsageError(fmt::format("--test {} is unknown: expected stream or pingpong", test));
  o.size = cli::parse_size(size);
  range("-s/--size", o.size, std::uint64_t{1}, kMaxBytesInFlight);
  if (o.size * static_cast<std::uint64_t>(streams) > kMaxBytesInFlight)
    throw cli::UsageError(fmt::format("--streams {} of -s/--size {} need {} bytes of buffers; at most {} "
                                      "in all: give fewer streams or a smaller size",
                                      streams, o.size, o.size * static_cast<std::uint64_t>(streams),
                                      kMaxBytesInFlight));
  o.port = static_cast<std::uint16_t>(port);
  o.streams = static_cast<std::uint32_t>(streams);
  o.iterations = static_cast<std::uint64_t>(iterations);
  o.warmup = static_cast<std::uint64_t>(warmup);
  o.timeout = Milliseconds(static_cast<long long>(timeout_s * 1000));
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool help = false;
  try {
    o = parse(argc, argv, help);
  } catch (const cli::UsageError& e) {
    std::cerr << "tcp_baseline: error: " << e.what() << "\nTry 'tcp_baseline --help'.\n";
    return 2;
  }
  if (help) return 0;
  try {
    return o.server.empty() ? serve(o) : run_client(o);
  } catch (const std::exception& e) {
    std::cerr << "tcp_baseline: error: " << e.what() << std::endl;
    return 1;
  }
}
