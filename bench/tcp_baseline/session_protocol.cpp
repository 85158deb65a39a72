#include "tcp_baseline/session_protocol.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "rdmabench/verbs/error.hpp"
#include "tcp_baseline/socket_io.hpp"
#include "tcp_baseline/tcp_options.hpp"

namespace rdmabench::tcp {

namespace {

void put_u64(std::uint8_t* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
}

std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

}  // namespace

HeaderBytes encode_header(const Header& h) {
  HeaderBytes out{};
  put_u64(out.data(), std::uint64_t{kSessionMagic} << 32 | kProtocolVersion);
  put_u64(out.data() + 8, std::uint64_t{h.test} << 32 | h.streams);
  put_u64(out.data() + 16, h.size);
  put_u64(out.data() + 24, h.round_trips);
  return out;
}

Header decode_header(const HeaderBytes& in) {
  const std::uint64_t magic = get_u64(in.data());
  if (magic >> 32 != kSessionMagic || (magic & 0xffffffff) != kProtocolVersion)
    throw Error("the client is not a tcp_baseline of this version (bad session header)");
  Header h;
  h.test = static_cast<std::uint32_t>(get_u64(in.data() + 8) >> 32);
  h.streams = static_cast<std::uint32_t>(get_u64(in.data() + 8));
  h.size = get_u64(in.data() + 16);
  h.round_trips = get_u64(in.data() + 24);
  // Each stream gets a buffer of `size`: bound what one header can make the
  // server allocate, as the client's options do.
  const bool known_test = h.test == static_cast<std::uint32_t>(Test::stream) ||
                          h.test == static_cast<std::uint32_t>(Test::pingpong);
  const bool pingpong = h.test == static_cast<std::uint32_t>(Test::pingpong);
  if (!known_test || h.streams < 1 || h.streams > kMaxStreams || h.size < 1 || h.size > kMaxBytesInFlight ||
      h.streams * h.size > kMaxBytesInFlight || (pingpong && (h.round_trips < 1 || h.round_trips > kMaxRoundTrips)))
    throw Error(fmt::format("session header out of range (test {}, {} streams, {} bytes, {} round trips)", h.test,
                            h.streams, h.size, h.round_trips));
  return h;
}

void send_header(int fd, const Header& h, Milliseconds timeout) {
  const HeaderBytes out = encode_header(h);
  send_all(fd, out.data(), out.size(), timeout);
}

Header receive_header(int fd, Milliseconds timeout) {
  HeaderBytes in{};
  receive_all(fd, in.data(), in.size(), timeout);
  return decode_header(in);
}

void send_summary(int fd, std::uint64_t bytes, const CpuUsage& cpu, Milliseconds timeout) {
  const std::string text = to_json(cpu).dump();
  std::vector<std::uint8_t> out(16);
  put_u64(out.data(), bytes);
  put_u64(out.data() + 8, text.size());
  out.insert(out.end(), text.begin(), text.end());
  send_all(fd, out.data(), out.size(), timeout);
}

Summary receive_summary(int fd, Milliseconds timeout) {
  std::uint8_t head[16];
  receive_all(fd, head, sizeof head, timeout);
  const std::uint64_t length = get_u64(head + 8);
  if (length > kMaxSummaryText) throw Error("server summary too long: not a tcp_baseline server?");
  std::string text(length, '\0');
  receive_all(fd, text.data(), length, timeout);
  Summary s{get_u64(head), nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false)};
  if (!s.cpu.is_object()) throw Error("server summary is not a JSON object: not a tcp_baseline server?");
  return s;
}

}  // namespace rdmabench::tcp
