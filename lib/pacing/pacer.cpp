#include "rdmabench/pacing/pacer.hpp"

#include <cmath>

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

namespace {

// Keeps i * whole ticks inside 128 bits for every uint64 i; on a 3 GHz clock
// it is 35 days between messages.
constexpr double kMaxTicksPerMessage = 0x1p53;

}  // namespace

double ticks_per_message(double messages_per_second, double ticks_per_us) {
  require(messages_per_second > 0 && std::isfinite(messages_per_second),
          fmt::format("a paced rate must be positive and finite, not {} messages per second", messages_per_second));
  require(ticks_per_us > 0 && std::isfinite(ticks_per_us),
          fmt::format("ticks per microsecond must be positive and finite, not {}", ticks_per_us));
  const double ticks = ticks_per_us * 1e6 / messages_per_second;
  require(ticks < kMaxTicksPerMessage,
          fmt::format("{:g} messages per second is too slow to pace: one message every {:.3g} s, "
                      "and this clock allows at most {:.3g} s between messages",
                      messages_per_second, ticks / ticks_per_us / 1e6, kMaxTicksPerMessage / ticks_per_us / 1e6));
  return ticks;
}

Pacer::Pacer(std::uint64_t start_ticks, double ticks_per_message, std::uint64_t burst)
    : start_(start_ticks), burst_(burst) {
  require(ticks_per_message > 0 && ticks_per_message < kMaxTicksPerMessage,
          fmt::format("pacer interval of {} ticks per message is out of range (0, 2^53)", ticks_per_message));
  require(burst >= 1, "a pacer burst must be at least 1 message");
  const double whole = std::floor(ticks_per_message);
  interval_whole_ = static_cast<std::uint64_t>(whole);
  // Below 1, so at most 2^64 - 2^11 after scaling: the cast cannot overflow.
  interval_fraction_ = static_cast<std::uint64_t>(std::ldexp(ticks_per_message - whole, 64));
  require(interval_whole_ != 0 || interval_fraction_ != 0,
          fmt::format("pacer interval of {} ticks per message rounds to zero", ticks_per_message));
}

double Pacer::ticks_per_message() const noexcept {
  return static_cast<double>(interval_whole_) + std::ldexp(static_cast<double>(interval_fraction_), -64);
}

}  // namespace rdmabench
