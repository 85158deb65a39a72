#pragma once
// tcp_baseline's own wire protocol, between its client and server: a
// fixed-size, big-endian session header on the control connection, the data
// connections, then the server's closing summary. Whatever arrives is
// checked before it is used: the peer is untrusted.

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "rdmabench/control/bootstrap.hpp"
#include "rdmabench/system/cpu_usage.hpp"

namespace rdmabench::tcp {

inline constexpr std::uint32_t kSessionMagic = 0x52425443;  // "RBTC"
inline constexpr std::uint32_t kProtocolVersion = 1;

/// What the client asks of the server.
struct Header {
  std::uint32_t test = 0;     ///< tcp::Test's code
  std::uint32_t streams = 0;  ///< data connections that follow
  std::uint64_t size = 0;     ///< bytes of each message (and each stream's buffer)
  std::uint64_t round_trips = 0;  ///< pingpong: warm-up and timed together
};

using HeaderBytes = std::array<std::uint8_t, 32>;

HeaderBytes encode_header(const Header& h);

/// The header in `bytes`; throws Error on a foreign magic or version, or on
/// values that would make the server allocate more than the client's
/// options allow (kMaxBytesInFlight, kMaxStreams).
Header decode_header(const HeaderBytes& bytes);

void send_header(int fd, const Header& h, Milliseconds timeout);
Header receive_header(int fd, Milliseconds timeout);

/// The server's closing message: the bytes it received and its CPU usage.
struct Summary {
  std::uint64_t bytes = 0;
  nlohmann::json cpu;  ///< to_json(CpuUsage), as the server sent it: an object
};

/// The longest CPU text a summary may carry.
inline constexpr std::uint64_t kMaxSummaryText = 65536;

void send_summary(int fd, std::uint64_t bytes, const CpuUsage& cpu, Milliseconds timeout);

/// Throws Error when the summary is too long, or its CPU text is not a JSON
/// object: the server is then no tcp_baseline.
Summary receive_summary(int fd, Milliseconds timeout);

}  // namespace rdmabench::tcp
