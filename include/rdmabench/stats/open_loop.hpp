#pragma once
/// @file
/// Latency of an open-loop run, counted two ways: the response time from
/// the message's intended send time (what a user of a paced service waits,
/// stalls included) and the service time from its actual post (what the
/// fabric took). A closed-loop figure is the second alone; the gap between
/// the two, and how many messages left late, is what a stall did.

#include <cstdint>
#include <optional>

#include "rdmabench/stats/histogram.hpp"
#include "rdmabench/stats/stats.hpp"

namespace rdmabench {

/// Everything in microseconds except the counts.
struct OpenLoopSummary {
  LatencySummary response;  ///< completed - intended
  LatencySummary service;   ///< completed - posted
  std::uint64_t messages = 0;
  /// Posted more than late_threshold_us after their intended time.
  std::uint64_t late = 0;
  double late_threshold_us = 0;
  /// How late the late ones were posted (posted - intended); absent when
  /// none were.
  std::optional<LatencySummary> lateness;
  /// Stamps out of order (posted before intended, completed before posted),
  /// counted and recorded as 0: a sign of a clock that is not monotonic
  /// across CPUs, never expected from the pacer.
  std::uint64_t reversed_stamps = 0;
};

/// Keeps the run's samples in fixed-memory histograms; record() never
/// allocates, so it may sit in the timed loop.
class OpenLoopRecorder {
 public:
  /// A message is late when posted more than `late_threshold_ticks` after it
  /// was due (one interval, say, or 1 us in ticks).
  explicit OpenLoopRecorder(std::uint64_t late_threshold_ticks,
                            unsigned sub_bucket_bits = Histogram::kDefaultSubBucketBits);

  /// One message's clock-tick stamps: when it was due (Pacer::intended),
  /// posted, and its completion seen.
  void record(std::uint64_t intended, std::uint64_t posted, std::uint64_t completed) noexcept;

  /// Throws Error when nothing was recorded or `ticks_per_us` is not
  /// positive and finite.
  OpenLoopSummary summarize(double ticks_per_us) const;

  const Histogram& response() const noexcept { return response_; }
  const Histogram& service() const noexcept { return service_; }
  /// Of the late messages only.
  const Histogram& lateness() const noexcept { return lateness_; }
  std::uint64_t late() const noexcept { return lateness_.count(); }
  std::uint64_t reversed_stamps() const noexcept { return reversed_stamps_; }

 private:
  std::uint64_t late_threshold_ticks_;
  Histogram response_;
  Histogram service_;
  Histogram lateness_;
  std::uint64_t reversed_stamps_ = 0;

  // later - earlier, or 0 (and counted) when the stamps are reversed: a
  // wrapped difference would be the run's maximum.
  std::uint64_t elapsed(std::uint64_t earlier, std::uint64_t later) noexcept;
};

}  // namespace rdmabench
