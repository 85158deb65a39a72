// Turning a loop's timestamps into a size's result.
#include "loops/loop_kit.hpp"
#include "loops/latency_recorders.hpp"

namespace rdmabench::detail {

SizeResult result_header(const LoopView& v, std::uint64_t bytes) {
  SizeResult r;
  r.bytes = bytes;
  r.iterations = v.spec.iterations;
  r.warmup = v.warmup();
  return r;
}

SizeResult histogram_result(SizeResult r, const Histogram& histogram, double ticks_per_us,
                            double divisor) {
  require(histogram.count() > 0,
          "the -D window held no complete round trip; lengthen -D");
  r.latency = histogram.summarize(ticks_per_us * divisor);
  r.iterations = histogram.count();
  r.warmup = 0;
  r.histogram_relative_error = histogram.relative_error();
  return r;
}

std::vector<double> interval_samples(const std::vector<std::uint64_t>& stamps, std::size_t count,
                                     double ticks_per_us, double divisor) {
  std::vector<double> samples;
  samples.reserve(count);
  for (std::size_t k = 0; k < count; ++k)
    samples.push_back(static_cast<double>(stamps[k + 1] - stamps[k]) / ticks_per_us / divisor);
  return samples;
}

SizeResult ping_pong_result(const LoopView& v, std::uint64_t bytes,
                            const std::vector<std::uint64_t>& stamps, const ClockInfo& clock) {
  SizeResult r = result_header(v, bytes);
  const std::size_t intervals = v.role == Role::client ? v.spec.iterations : v.spec.iterations - 1;
  r.latency_samples_us = interval_samples(stamps, intervals, clock.ticks_per_us, 2.0);
  if (!r.latency_samples_us.empty()) r.latency = summarize_latency(r.latency_samples_us);
  return r;
}

}  // namespace rdmabench::detail
