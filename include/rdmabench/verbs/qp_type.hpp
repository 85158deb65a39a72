#pragma once
/// @file
/// The queue pair's transport service, and the datagram constants both
/// sides share: what the verbs layer needs of a test to build its queues.

#include <cstdint>
#include <string>

namespace rdmabench {

/// The queue pair's transport service (perftest's -c): reliable connected,
/// unreliable connected (no acks, no reads or atomics), unreliable datagram
/// (sends only, one MTU per message, messages may be lost).
enum class QpType : std::uint8_t { rc = 1, uc = 2, ud = 3 };

std::string to_string(QpType type);  ///< perftest's names: RC, UC, UD

/// UD messages carry this Q_Key; both sides use the same constant.
inline constexpr std::uint32_t kUdQkey = 0x11111111;
/// A UD receive gets the 40-byte Global Routing Header in front of the payload.
inline constexpr std::uint32_t kUdGrhBytes = 40;

}  // namespace rdmabench
