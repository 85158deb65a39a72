#include "rdmabench/pacing/rate.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "rdmabench/compat/read_double.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

namespace {

constexpr std::string_view kAcceptedForms =
    "use a number with bps, kbps, Mbps, Gbps (bits/s), KBps or kBps, MBps, GBps (bytes/s, "
    "decimal: 1 MBps = 10^6 B/s), pps, kpps, Mpps (messages/s), or a bare number of messages "
    "per second, e.g. 10Gbps, 500MBps, 200kpps, 3000";

struct UnitSpelling {
  std::string_view suffix;
  double scale;
  RateUnit unit;
};

// Every accepted suffix.
constexpr std::array<UnitSpelling, 11> kUnits{{
    {"bps", 1, RateUnit::bits_per_second},
    {"kbps", 1e3, RateUnit::bits_per_second},
    {"Mbps", 1e6, RateUnit::bits_per_second},
    {"Gbps", 1e9, RateUnit::bits_per_second},
    {"KBps", 1e3, RateUnit::bytes_per_second},
    {"kBps", 1e3, RateUnit::bytes_per_second},
    {"MBps", 1e6, RateUnit::bytes_per_second},
    {"GBps", 1e9, RateUnit::bytes_per_second},
    {"pps", 1, RateUnit::messages_per_second},
    {"kpps", 1e3, RateUnit::messages_per_second},
    {"Mpps", 1e6, RateUnit::messages_per_second},
}};

// The latency tests' --rate R: messages per second without a unit.
constexpr UnitSpelling kBareNumber{"", 1, RateUnit::messages_per_second};

[[noreturn]] void reject(std::string_view text, const std::string& why) {
  throw Error(fmt::format("--rate '{}': {}; {}", text, why, kAcceptedForms));
}

const UnitSpelling* find_unit(std::string_view suffix) {
  for (const auto& spelling : kUnits)
    if (spelling.suffix == suffix) return &spelling;
  return nullptr;
}

void require_message_rate_in_range(double per_second, std::string_view what) {
  require(per_second <= kMaxMessagesPerSecond,
          fmt::format("{} is {:.4g} messages per second, above the limit of {:g}", what, per_second,
                      kMaxMessagesPerSecond),
          "no poster sends that fast; lower the rate or raise the message size");
}

struct Prefix {
  double scale;
  std::string_view name;
};

}  // namespace

Rate parse_rate(std::string_view text) {
  double number = 0;
  const char* const end = text.data() + text.size();
  const auto [rest, ec] = read_double(text.data(), end, number);
  if (ec == std::errc::result_out_of_range) reject(text, "the number is out of range");
  if (ec != std::errc{}) reject(text, "expected a number first");
  const std::string_view suffix(rest, static_cast<std::size_t>(end - rest));
  const UnitSpelling* spelling = suffix.empty() ? &kBareNumber : find_unit(suffix);
  if (spelling == nullptr) reject(text, fmt::format("unknown unit '{}'", suffix));
  if (!std::isfinite(number)) reject(text, "the rate must be a finite number");
  if (number <= 0) reject(text, "the rate must be above zero");
  const Rate rate{number * spelling->scale, spelling->unit};
  if (!std::isfinite(rate.value)) reject(text, "the number is out of range");  // 1e308Gbps
  if (rate.unit == RateUnit::messages_per_second && rate.value > kMaxMessagesPerSecond)
    reject(text, fmt::format("that is above the limit of {:g} messages per second", kMaxMessagesPerSecond));
  return rate;
}

double messages_per_second(const Rate& rate, std::uint64_t message_bytes) {
  if (rate.unit == RateUnit::messages_per_second) return rate.value;
  require(message_bytes > 0, "a bit or byte rate needs a message size of at least 1 byte");
  const double bytes = static_cast<double>(message_bytes);
  const double per_second =
      rate.unit == RateUnit::bits_per_second ? rate.value / (8 * bytes) : rate.value / bytes;
  require_message_rate_in_range(per_second, fmt::format("{} at {} B per message", format_rate(rate),
                                                        message_bytes));
  return per_second;
}

std::string format_rate(const Rate& rate) {
  static constexpr std::array<Prefix, 5> kPrefixes{{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}}};
  const std::string_view unit = rate.unit == RateUnit::bits_per_second    ? "b/s"
                                : rate.unit == RateUnit::bytes_per_second ? "B/s"
                                                                          : "msg/s";
  // The first prefix that leaves at least 1; a rate below 1/s keeps none.
  Prefix chosen = kPrefixes.back();
  for (const Prefix& prefix : kPrefixes) {
    if (rate.value >= prefix.scale) {
      chosen = prefix;
      break;
    }
  }
  return fmt::format("{:.4g} {}{}", rate.value / chosen.scale, chosen.name, unit);
}

}  // namespace rdmabench
