#pragma once
// Where the open-loop latency loop (open_loop_latency.cpp) puts each
// message's three times, and which messages it posts at all: a counted run
// keeps every timed message (exact percentiles, --dump-samples); a -D run
// posts until the duration ends and folds the messages due inside its window
// into fixed-size histograms. The loop is a template over these, so neither
// mode's choice sits inside it.
#include <cstdint>
#include <limits>
#include <vector>

#include "rdmabench/pacing/pacing.hpp"
#include "rdmabench/report/result.hpp"
#include "rdmabench/stats/open_loop.hpp"

namespace rdmabench::detail {

/// The first and last post of the timed messages, for the achieved rate.
struct PostSpan {
  std::uint64_t first = 0, last = 0, count = 0;
  void add(std::uint64_t posted) {
    if (count++ == 0) first = posted;
    last = posted;
  }
  /// Messages per second over the span: count - 1 intervals; 0 below two.
  double per_second(double ticks_per_us) const;
};

class CountedOpenLoopSink {
 public:
  /// Allocates every timed message's slot before timing.
  CountedOpenLoopSink(std::uint64_t warmup, std::uint64_t iterations, std::uint64_t late_threshold_ticks);
  std::uint64_t total() const { return warmup_ + stamps_.size(); }
  bool keep_posting(std::uint64_t posted, std::uint64_t /*now*/) const { return posted < total(); }
  void start(std::uint64_t /*first_due*/) {}
  void record(std::uint64_t i, std::uint64_t intended, std::uint64_t posted, std::uint64_t completed) {
    if (i < warmup_) return;
    stamps_[i - warmup_] = {intended, posted, completed};
    span_.add(posted);
  }
  SizeResult result(SizeResult header, const Pacing& pacing, double target_per_s, double ticks_per_us) const;

 private:
  struct Stamps {
    std::uint64_t intended, posted, completed;
  };
  std::uint64_t warmup_;
  std::uint64_t late_threshold_ticks_;
  std::vector<Stamps> stamps_;
  PostSpan span_;
};

class TimedOpenLoopSink {
 public:
  TimedOpenLoopSink(std::uint32_t duration_s, double ticks_per_message, std::uint64_t late_threshold_ticks,
                    double ticks_per_us, double margin_share);
  /// The -D run ends by the clock, not by a count.
  std::uint64_t total() const { return std::numeric_limits<std::uint64_t>::max(); }
  bool keep_posting(std::uint64_t /*posted*/, std::uint64_t now) const { return now < deadline_; }
  /// Fixes the deadline and the window from the first message's due time.
  void start(std::uint64_t first_due);
  void record(std::uint64_t i, std::uint64_t intended, std::uint64_t posted, std::uint64_t completed) {
    if (i < first_timed_ || i >= end_timed_) return;
    recorder_.record(intended, posted, completed);
    span_.add(posted);
  }
  /// Throws Error when the window timed no message.
  SizeResult result(SizeResult header, const Pacing& pacing, double target_per_s, double ticks_per_us) const;

 private:
  std::uint64_t duration_ticks_;
  double margin_share_;
  double ticks_per_message_;
  std::uint64_t deadline_ = 0;
  std::uint64_t first_timed_ = 0, end_timed_ = 0;  ///< messages due inside the window
  OpenLoopRecorder recorder_;
  PostSpan span_;
};

}  // namespace rdmabench::detail
