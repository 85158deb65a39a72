// The two open-loop sinks' results: response time as the size's latency,
// service time and lateness beside it.
#include "loops/open_loop_sinks.hpp"

#include <cmath>

#include "rdmabench/stats/stats.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

namespace {

/// later - earlier, or 0 should a clock read come out behind the one before.
std::uint64_t since(std::uint64_t earlier, std::uint64_t later) { return later > earlier ? later - earlier : 0; }

OpenLoopFigures figures_for(const Pacing& pacing, double target_per_s, const PostSpan& span,
                            double ticks_per_us) {
  OpenLoopFigures f;
  f.target = format_rate(pacing.rate);
  f.target_per_s = target_per_s;
  f.achieved_per_s = span.per_second(ticks_per_us);
  f.burst = pacing.burst;
  return f;
}

}  // namespace

double PostSpan::per_second(double ticks_per_us) const {
  if (count < 2 || last <= first) return 0;
  return static_cast<double>(count - 1) / (static_cast<double>(last - first) / ticks_per_us / 1e6);
}

CountedOpenLoopSink::CountedOpenLoopSink(std::uint64_t warmup, std::uint64_t iterations,
                                         std::uint64_t late_threshold_ticks)
    : warmup_(warmup), late_threshold_ticks_(late_threshold_ticks), stamps_(iterations) {}

SizeResult CountedOpenLoopSink::result(SizeResult r, const Pacing& pacing, double target_per_s,
                                       double ticks_per_us) const {
  require(!stamps_.empty(), "an open-loop run needs at least one timed message (-n)");
  std::vector<double> service, lateness;
  service.reserve(stamps_.size());
  r.latency_samples_us.reserve(stamps_.size());
  r.message_times.reserve(stamps_.size());
  const std::uint64_t origin = stamps_.front().intended;
  const auto us = [&](std::uint64_t ticks) { return static_cast<double>(ticks) / ticks_per_us; };
  for (const Stamps& m : stamps_) {
    const std::uint64_t late_by = since(m.intended, m.posted);
    r.latency_samples_us.push_back(us(late_by + since(m.posted, m.completed)));
    service.push_back(us(since(m.posted, m.completed)));
    if (late_by > late_threshold_ticks_) lateness.push_back(us(late_by));
    r.message_times.push_back({us(m.intended - origin), us(m.posted - origin), us(m.completed - origin)});
  }
  OpenLoopFigures f = figures_for(pacing, target_per_s, span_, ticks_per_us);
  f.service = summarize_latency(std::move(service));
  f.late = lateness.size();
  f.late_threshold_us = us(late_threshold_ticks_);
  if (!lateness.empty()) f.lateness = summarize_latency(std::move(lateness));
  r.latency = summarize_latency(r.latency_samples_us);
  r.open_loop = f;
  return r;
}

TimedOpenLoopSink::TimedOpenLoopSink(std::uint32_t duration_s, double ticks_per_message,
                                     std::uint64_t late_threshold_ticks, double ticks_per_us,
                                     double margin_share)
    : duration_ticks_(static_cast<std::uint64_t>(duration_s * 1e6 * ticks_per_us)),
      margin_share_(margin_share),
      ticks_per_message_(ticks_per_message),
      recorder_(late_threshold_ticks) {}

void TimedOpenLoopSink::start(std::uint64_t first_due) {
  deadline_ = first_due + duration_ticks_;
  // The same window as the closed-loop -D runs: the first and last tenth
  // are not timed (none in a soak). Message i is due at i x interval after
  // the first.
  const double margin = static_cast<double>(duration_ticks_) * margin_share_;
  first_timed_ = static_cast<std::uint64_t>(std::ceil(margin / ticks_per_message_));
  end_timed_ = static_cast<std::uint64_t>(std::ceil((static_cast<double>(duration_ticks_) - margin) / ticks_per_message_));
}

SizeResult TimedOpenLoopSink::result(SizeResult r, const Pacing& pacing, double target_per_s,
                                     double ticks_per_us) const {
  require(recorder_.response().count() > 0,
          "the -D window held no message: the --rate is below one message per 0.8 x -D; raise it or lengthen -D");
  const OpenLoopSummary s = recorder_.summarize(ticks_per_us);
  OpenLoopFigures f = figures_for(pacing, target_per_s, span_, ticks_per_us);
  f.service = s.service;
  f.late = s.late;
  f.late_threshold_us = s.late_threshold_us;
  f.lateness = s.lateness;
  const std::uint64_t scheduled = end_timed_ - first_timed_;
  f.not_sent = scheduled > s.messages ? scheduled - s.messages : 0;
  r.latency = s.response;
  r.iterations = s.messages;
  r.warmup = 0;
  r.histogram_relative_error = recorder_.response().relative_error();
  r.open_loop = f;
  return r;
}

}  // namespace rdmabench::detail
