#include "faults.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "catch2_compat.hpp"
#include <cstdlib>
#include <fstream>
#include <span>
#include <sstream>
#include <variant>

#include "lab.hpp"
#include "rdmabench/control/wire.hpp"

namespace lab {

namespace wire = rdmabench::wire;

std::vector<std::string> pause_environment(const std::string& phase,
                                           const std::filesystem::path& pause_file) {
  // mid-run: 300 ms into the first size, long before any size used here ends.
  return {"RDMABENCH_PAUSE_AT=" + phase, "RDMABENCH_PAUSE_FILE=" + pause_file.string(),
          "RDMABENCH_PAUSE_DELAY_MS=300"};
}

bool wait_until_paused(Process& p, const std::filesystem::path& pause_file,
                       std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // The file is written just before the process stops itself: a signal
  // sent in between (SIGCONT) would be lost, so wait for the stop too.
  while (!std::filesystem::exists(pause_file) || !p.stopped()) {
    if (!p.running() || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

namespace {

/// Runs a shell command; true when it exits 0.
bool shell(const std::string& command) { return std::system(command.c_str()) == 0; }

/// Each cut's filters share one preference, so one command removes them.
std::string cut_preference(int port) { return std::to_string(port / 2); }

}  // namespace

LoopbackFilterRoot::LoopbackFilterRoot() {
  const std::string add = "tc qdisc add dev lo root handle 1: prio bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";
  INFO(add);
  REQUIRE(shell(add));
}

LoopbackFilterRoot::~LoopbackFilterRoot() { shell("tc qdisc del dev lo root"); }

PairLinkCut::PairLinkCut(int port) : port_(port) {
  REQUIRE(port % 2 == 0);
  // Both filters in one tc, started directly: the cut lands within a few
  // milliseconds of the hurt side's pause even with cells side by side. The
  // mask 0xfffe matches the even port and the odd one after it.
  const TempDir tmp;
  const auto batch = tmp.path / "cut.tc";
  {
    std::ofstream out(batch);
    for (const char* end : {"dport", "sport"})
      out << "filter add dev lo parent 1: protocol ip prio " << cut_preference(port) << " u32 match ip " << end
          << " " << port << " 0xfffe action drop\n";
  }
  Process tc({"/usr/sbin/tc", "-batch", batch.string()});
  const auto rc = tc.wait_for(std::chrono::seconds(10));
  INFO(tc.describe() << " (needs lo's prio root: LoopbackFilterRoot)");
  REQUIRE(rc == 0);
}

PairLinkCut::~PairLinkCut() {
  shell("tc filter del dev lo parent 1: protocol ip prio " + cut_preference(port_));
}

namespace {

/// A TCP connection to 127.0.0.1:`port`, or -1 if refused.
int try_connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  ::close(fd);
  return -1;
}

}  // namespace

int connect_loopback(int port) {
  const int fd = try_connect_loopback(port);
  REQUIRE(fd >= 0);
  return fd;
}

namespace {

/// Sends a hello for `spec` and then `after`; what the server wrote back
/// until it closed, or whatever came within 10 s.
std::optional<std::string> exchange_with_server(int port, const rdmabench::TestSpec& spec,
                                                const std::vector<wire::Message>& after) {
  const int fd = try_connect_loopback(port);
  if (fd < 0) return std::nullopt;
  auto bytes = wire::encode(wire::Hello{spec});
  for (const auto& message : after) {
    const auto frame = wire::encode(message);
    bytes.insert(bytes.end(), frame.begin(), frame.end());
  }
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  timeval limit{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  std::string reply(4096, '\0');
  std::size_t got = 0;
  for (ssize_t n; got < reply.size() && (n = ::recv(fd, reply.data() + got, reply.size() - got, 0)) > 0;)
    got += static_cast<std::size_t>(n);
  ::close(fd);
  reply.resize(got);
  return reply;
}

}  // namespace

std::optional<std::string> try_answer_to_hello(int port, const rdmabench::TestSpec& spec) {
  return exchange_with_server(port, spec, {});
}

std::string answer_to_hello_then(int port, const rdmabench::TestSpec& spec, const std::vector<wire::Message>& after) {
  const auto answer = exchange_with_server(port, spec, after);
  REQUIRE(answer.has_value());
  return *answer;
}

std::string answer_to_hello(int port, const rdmabench::TestSpec& spec) {
  const auto answer = try_answer_to_hello(port, spec);
  REQUIRE(answer.has_value());
  return *answer;
}

std::string reason_in(const std::string& frame) {
  try {
    const auto bytes = reinterpret_cast<const std::uint8_t*>(frame.data());
    const auto message = wire::decode(std::span<const std::uint8_t>(bytes, frame.size()));
    if (const auto* r = std::get_if<wire::Reject>(&message)) return r->reason;
    if (const auto* a = std::get_if<wire::Abort>(&message)) return a->reason;
    return "a " + wire::type_name(message) + " message";
  } catch (const std::exception& e) {
    return std::string("not one frame: ") + e.what();
  }
}

GarbageServer::GarbageServer(int port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  const int on = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(listener_, 1) == 0);
  thread_ = std::thread([this] {
    connection_ = ::accept(listener_, nullptr, nullptr);
    if (connection_ < 0) return;
    const std::string garbage = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    ::send(connection_, garbage.data(), garbage.size(), MSG_NOSIGNAL);
  });
}

GarbageServer::~GarbageServer() {
  ::shutdown(listener_, SHUT_RDWR);  // ends an accept still waiting
  thread_.join();
  if (connection_ >= 0) ::close(connection_);
  ::close(listener_);
}

}  // namespace lab
