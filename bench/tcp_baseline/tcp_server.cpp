// The server: adopts the client's session header (checked), echoes or
// drains the data connections, and closes with its summary.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/ready_file.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "tcp_baseline/session_protocol.hpp"
#include "tcp_baseline/socket_io.hpp"
#include "tcp_baseline/tcp_roles.hpp"

namespace rdmabench::tcp {

namespace {

/// Pingpong: returns every message as it arrives; the bytes of both
/// directions, as the client counts them.
std::uint64_t echo_round_trips(int fd, const Header& h, Milliseconds timeout) {
  std::vector<std::uint8_t> buffer(h.size);
  for (std::uint64_t i = 0; i < h.round_trips; ++i) {
    receive_all(fd, buffer.data(), h.size, timeout);
    send_all(fd, buffer.data(), h.size, timeout);
  }
  return 2 * h.size * h.round_trips;
}

/// Stream: reads every connection until the client shuts it down, one
/// thread each; the bytes received on all of them.
std::uint64_t drain_streams(std::vector<ControlChannel>& data, const Header& h, Milliseconds timeout) {
  std::vector<std::uint64_t> received(data.size(), 0);
  std::vector<std::string> errors(data.size());
  std::vector<std::thread> readers;
  for (std::size_t i = 0; i < data.size(); ++i)
    readers.emplace_back([&, i] {
      std::vector<std::uint8_t> buffer(std::max<std::uint64_t>(h.size, 1 << 16));
      try {
        while (std::size_t n = receive_some(data[i].fd(), buffer.data(), buffer.size(), timeout))
          received[i] += n;
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : readers) t.join();
  for (const auto& e : errors)
    if (!e.empty()) throw Error("stream: " + e);
  std::uint64_t total = 0;
  for (auto n : received) total += n;
  return total;
}

}  // namespace

int serve(const Options& o) {
  ControlListener listener(o.port, o.timeout, o.bind_address);
  // For people; scripts wait for --ready-file instead of reading this.
  std::cerr << fmt::format("tcp_baseline: waiting for a client on TCP port {}", o.port) << std::endl;
  if (!o.ready_file.empty()) cli::write_ready_file(o.ready_file, o.port);
  ControlChannel control = listener.accept(Milliseconds(0));
  const Header h = receive_header(control.fd(), o.timeout);
  std::vector<ControlChannel> data;
  // The data connections come from the session's client; another host's
  // is closed unanswered (it may not take the run's streams).
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  while (data.size() < h.streams) {
    const auto left = std::chrono::duration_cast<Milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw Error(fmt::format("the client opened {} of its {} data connections within {} ms", data.size(),
                              h.streams, o.timeout.count()));
    ControlChannel stream = listener.accept(left);
    if (stream.peer_host() == control.peer_host()) {
      data.push_back(std::move(stream));
      continue;
    }
    std::cerr << fmt::format("tcp_baseline: refused a data connection from {}: this run belongs to {}",
                             stream.peer_name(), control.peer_name())
              << std::endl;
  }
  const CpuSnapshot before = take_cpu_snapshot();
  const std::uint64_t total = static_cast<Test>(h.test) == Test::pingpong
                                  ? echo_round_trips(data[0].fd(), h, o.timeout)
                                  : drain_streams(data, h, o.timeout);
  send_summary(control.fd(), total, cpu_usage_between(before, take_cpu_snapshot(), total), o.timeout);
  return 0;
}

}  // namespace rdmabench::tcp
