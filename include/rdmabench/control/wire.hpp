#pragma once
/// @file
/// The out-of-band control messages: versioned, big-endian, length-checked.
///
/// Frame: magic "RDMB" (u32), version (u16), type (u16), payload length (u32),
/// then the payload. Every decode checks every length; nothing trusts the peer.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "rdmabench/system/cpu_usage.hpp"
#include "rdmabench/report/result.hpp"
#include "rdmabench/control/test_parameters.hpp"

namespace rdmabench::wire {

inline constexpr std::uint32_t kMagic = 0x52444D42;  // "RDMB"
// 2: -q, -D, -b and -c in the hello; 3: warmup_each_size; 4: passive_wait;
// 5: the hello is the table of test parameters, after its fingerprint.
inline constexpr std::uint16_t kVersion = 5;
/// The first field of every hello: the fingerprint of this build's table.
inline constexpr std::uint32_t kHelloFingerprint = test_parameters_fingerprint();
inline constexpr std::size_t kHeaderSize = 12;
inline constexpr std::uint32_t kMaxPayload = 64 * 1024;
inline constexpr std::size_t kMaxText = 1024;

enum class MessageType : std::uint16_t {
  hello = 1, reject = 2, endpoint = 3, barrier = 4, abort = 5, cpu_report = 6,
  bandwidth_report = 7, heartbeat = 8
};

/// Client -> server: the test the client wants to run (every row of
/// kTestParameters, in order, after kHelloFingerprint).
struct Hello {
  TestSpec spec;
  bool operator==(const Hello&) const = default;
};

/// Server -> client: the test cannot run; `reason` names the option.
struct Reject {
  std::string reason;
  bool operator==(const Reject&) const = default;
};

/// Everything the peer needs to reach our QP and our target buffer.
struct Endpoint {
  std::uint32_t qp_number = 0;
  std::uint32_t packet_sequence = 0;
  std::uint16_t lid = 0;
  std::array<std::uint8_t, 16> gid{};
  std::uint32_t mtu_bytes = 0;
  std::uint8_t read_responders = 0;  ///< RDMA reads the sender serves at once
  std::uint32_t rkey = 0;
  std::uint64_t address = 0;
  std::uint64_t length = 0;
  std::string memory;  ///< memory type of the buffer, for the reports
  bool operator==(const Endpoint&) const = default;
};

/// Both sides: a numbered rendezvous point.
struct Barrier {
  std::uint32_t sequence = 0;
  bool operator==(const Barrier&) const = default;
};

/// Either side: the sender is giving up, and why.
struct Abort {
  std::string reason;
  bool operator==(const Abort&) const = default;
};

/// Server -> client after each size with --cpu-util: the server's CPU cost.
struct CpuReport {
  CpuUsage usage;
  bool operator==(const CpuReport&) const = default;
};

/// Server -> client after each size with -b: what the server sent.
struct BandwidthReport {
  BandwidthFigures figures;
  bool operator==(const BandwidthReport&) const = default;
};

/// Either side, every second or so while a run is under way: "still here".
/// A side waiting for its peer for as long as a size takes (the passive
/// server of a one-sided test) needs it to tell a slow peer from a stopped,
/// crashed or cut-off one. Receivers skip it.
struct Heartbeat {
  bool operator==(const Heartbeat&) const = default;
};

using Message =
    std::variant<Hello, Reject, Endpoint, Barrier, Abort, CpuReport, BandwidthReport, Heartbeat>;

std::string type_name(const Message& message);

/// A whole frame (header and payload).
std::vector<std::uint8_t> encode(const Message& message);

/// Validates a frame header (magic, version, type, payload bound) and returns
/// the payload length and type. Throws Error naming what was wrong.
struct FrameHeader {
  MessageType type;
  std::uint32_t payload_length;
};
FrameHeader decode_header(std::span<const std::uint8_t> header);

/// Decodes a payload of the given type; rejects short and over-long payloads.
Message decode_payload(MessageType type, std::span<const std::uint8_t> payload);

/// Decodes exactly one whole frame.
Message decode(std::span<const std::uint8_t> frame);

}  // namespace rdmabench::wire
