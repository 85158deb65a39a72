#include "rdmabench/pacing/achieved_rate.hpp"

#include <cmath>

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

AchievedRate achieved_rate(const Rate& target, std::uint64_t messages, std::uint64_t bytes_per_message,
                           std::uint64_t elapsed_ticks, double ticks_per_us) {
  require(elapsed_ticks > 0, "an achieved rate needs an elapsed time above zero");
  require(ticks_per_us > 0 && std::isfinite(ticks_per_us), "ticks per microsecond must be positive and finite");
  require(target.value > 0 && std::isfinite(target.value), "a target rate must be positive and finite");
  const double seconds = static_cast<double>(elapsed_ticks) / ticks_per_us / 1e6;
  const double count = static_cast<double>(messages);
  const double bytes = count * static_cast<double>(bytes_per_message);
  double per_second = count / seconds;
  if (target.unit == RateUnit::bytes_per_second) per_second = bytes / seconds;
  if (target.unit == RateUnit::bits_per_second) per_second = 8 * bytes / seconds;
  const Rate achieved{per_second, target.unit};
  return {target, achieved, achieved.value / target.value};
}

std::string format_achieved(const AchievedRate& result) {
  return fmt::format("{} of {} ({:.2f}%)", format_rate(result.achieved), format_rate(result.target),
                     100 * result.ratio);
}

}  // namespace rdmabench
