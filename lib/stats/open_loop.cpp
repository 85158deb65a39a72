#include "rdmabench/stats/open_loop.hpp"

#include <cmath>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

OpenLoopRecorder::OpenLoopRecorder(std::uint64_t late_threshold_ticks, unsigned sub_bucket_bits)
    : late_threshold_ticks_(late_threshold_ticks),
      response_(sub_bucket_bits),
      service_(sub_bucket_bits),
      lateness_(sub_bucket_bits) {}

std::uint64_t OpenLoopRecorder::elapsed(std::uint64_t earlier, std::uint64_t later) noexcept {
  if (later >= earlier) return later - earlier;
  ++reversed_stamps_;
  return 0;
}

void OpenLoopRecorder::record(std::uint64_t intended, std::uint64_t posted, std::uint64_t completed) noexcept {
  const std::uint64_t late_by = elapsed(intended, posted);
  const std::uint64_t service = elapsed(posted, completed);
  // From intended through the post, so a reversed pair counts 0 once and
  // the response is never shorter than the service.
  response_.record(late_by + service);
  service_.record(service);
  if (late_by > late_threshold_ticks_) lateness_.record(late_by);
}

OpenLoopSummary OpenLoopRecorder::summarize(double ticks_per_us) const {
  require(response_.count() > 0, "no open-loop samples to summarise");
  require(ticks_per_us > 0 && std::isfinite(ticks_per_us), "ticks per microsecond must be positive and finite");
  OpenLoopSummary s;
  s.response = response_.summarize(ticks_per_us);
  s.service = service_.summarize(ticks_per_us);
  s.messages = response_.count();
  s.late = lateness_.count();
  s.late_threshold_us = static_cast<double>(late_threshold_ticks_) / ticks_per_us;
  if (s.late > 0) s.lateness = lateness_.summarize(ticks_per_us);
  s.reversed_stamps = reversed_stamps_;
  return s;
}

}  // namespace rdmabench
