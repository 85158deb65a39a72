#pragma once
/// @file
/// What a paced run delivered against its --rate: the achieved rate in the
/// target's own unit, so the report reads "9.98 Gb/s of 10 Gb/s", and the
/// ratio that the rate tests hold within 1% of 1.

#include <cstdint>
#include <string>

#include "rdmabench/pacing/rate.hpp"

namespace rdmabench {

struct AchievedRate {
  Rate target;
  Rate achieved;       ///< in target.unit
  double ratio = 0;    ///< achieved / target
};

/// `messages` of `bytes_per_message` payload bytes sent in `elapsed_ticks`
/// of a clock with `ticks_per_us`. Throws Error unless `elapsed_ticks` is
/// above zero, `ticks_per_us` is positive and finite, and the target's value
/// is positive.
AchievedRate achieved_rate(const Rate& target, std::uint64_t messages, std::uint64_t bytes_per_message,
                           std::uint64_t elapsed_ticks, double ticks_per_us);

/// For the report: "9.988 Gb/s of 10 Gb/s (99.88%)".
std::string format_achieved(const AchievedRate& result);

}  // namespace rdmabench
