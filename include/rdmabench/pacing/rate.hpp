#pragma once
/// @file
/// The target rate of a paced run (--rate): parsed once from the command
/// line with its unit, kept in that unit for the report, and turned into
/// messages per second only where the message size is known, because one
/// "10Gbps" is a different message rate at every size of a sweep.

#include <cstdint>
#include <string>
#include <string_view>

namespace rdmabench {

/// What a rate counts. Bits and bytes are of payload, as the bandwidth
/// figures count them (no headers, no wire overhead).
enum class RateUnit { bits_per_second, bytes_per_second, messages_per_second };

/// A rate in its base unit: `value` bits, bytes or messages per second (a
/// parsed "2.5Gbps" is {2.5e9, bits_per_second}).
struct Rate {
  double value = 0;
  RateUnit unit = RateUnit::messages_per_second;
};

/// Faster than any one poster can post; a larger value is a typing mistake.
inline constexpr double kMaxMessagesPerSecond = 1e10;

/// Parses a --rate value: a number followed by a unit, SI prefixes decimal
/// (k = 1000):
///   bits/s      bps, kbps, Mbps, Gbps        ("10Gbps", "500kbps")
///   bytes/s     KBps or kBps, MBps, GBps     ("500MBps"; 1 MBps = 10^6 B/s)
///   messages/s  pps, kpps, Mpps              ("200kpps")
///   a bare number is messages per second     ("3000", the latency tests')
/// Prefixes are case-sensitive as written (m would be milli, not mega).
/// Throws Error naming the bad text and listing the accepted forms when the
/// number or unit is not one of these, when the rate is not positive and
/// finite, or when a message rate exceeds kMaxMessagesPerSecond.
Rate parse_rate(std::string_view text);

/// Messages per second that carry `rate` at `message_bytes` per message.
/// Throws Error when a bit or byte rate meets a zero message size, or the
/// result exceeds kMaxMessagesPerSecond (e.g. 100Gbps of 1-byte messages).
double messages_per_second(const Rate& rate, std::uint64_t message_bytes);

/// For reports: the value scaled to the largest prefix that leaves at least
/// 1, with up to four significant digits: "10 Gb/s", "2.5 GB/s",
/// "200 kmsg/s", "800 b/s".
std::string format_rate(const Rate& rate);

}  // namespace rdmabench
