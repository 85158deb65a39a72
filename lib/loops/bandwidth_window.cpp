#include "loops/bandwidth_window.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

BandwidthWindow BandwidthWindow::counted(std::uint64_t peak_span, std::size_t lanes) {
  BandwidthWindow w;
  w.peak_span_ = std::max<std::uint64_t>(peak_span, 1);
  w.begin_.lanes.assign(lanes, 0);
  w.end_.lanes.assign(lanes, 0);
  return w;
}

BandwidthWindow BandwidthWindow::timed(std::uint32_t duration_s, double ticks_per_us,
                                       std::uint64_t peak_span, std::size_t lanes, double margin_share) {
  BandwidthWindow w = counted(peak_span, lanes);
  const double ticks = static_cast<double>(duration_s) * 1e6 * ticks_per_us;
  w.deadline_ticks_ = static_cast<std::uint64_t>(ticks);
  w.margin_ticks_ = static_cast<std::uint64_t>(ticks * margin_share);
  return w;
}

void BandwidthWindow::keep_intervals(std::chrono::milliseconds interval, std::uint32_t duration_s,
                                     double ticks_per_us) {
  if (interval.count() <= 0) return;
  interval_ticks_ = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(static_cast<double>(interval.count()) * 1e3 * ticks_per_us));
  interval_capacity_ = duration_s ? static_cast<std::size_t>(duration_s) * 1000 /
                                            static_cast<std::size_t>(interval.count()) + 1
                                  : kCountedIntervals;
  interval_edges_.reserve(interval_capacity_ + 2);  // with the opening edge and the tail's
}

void BandwidthWindow::mark(Mark& m, std::uint64_t now, std::uint64_t completed,
                           const std::vector<Lane>& lanes) {
  m.time = now;
  m.completed = completed;
  for (std::size_t i = 0; i < lanes.size(); ++i) m.lanes[i] = lanes[i].completed;
}

void BandwidthWindow::start(std::uint64_t now) {
  std::fill(begin_.lanes.begin(), begin_.lanes.end(), 0);
  std::fill(end_.lanes.begin(), end_.lanes.end(), 0);
  begin_.time = end_.time = now;
  begin_.completed = end_.completed = 0;
  peak_mark_time_ = now;
  peak_mark_completed_ = 0;
  peak_ticks_rate_ = 0;
  edges_passed_ = 0;
  interval_edges_.clear();
  intervals_cut_short_ = intervals_closed_ = false;
  next_interval_ = next_edge_ = ~0ull;
  if (timed()) {
    // Until the window opens, nothing counts towards the peak either.
    peak_counting_ = false;
    deadline_ticks_ += now;
    next_edge_ = now + margin_ticks_;
  } else {
    open_intervals(now, 0);
  }
  next_check_ = std::min(next_edge_, next_interval_);
}

void BandwidthWindow::open_intervals(std::uint64_t now, std::uint64_t completed) {
  if (!interval_ticks_) return;
  interval_edges_.push_back({now, completed});
  next_interval_ = now + interval_ticks_;
}

void BandwidthWindow::note_interval(std::uint64_t now, std::uint64_t completed) {
  // Room for the tail's edge stays free: the series ends at capacity whole
  // intervals, and says so.
  if (interval_edges_.size() > interval_capacity_) {
    intervals_cut_short_ = true;
    next_interval_ = ~0ull;
    return;
  }
  interval_edges_.push_back({now, completed});
  // From this poll, not from the nominal end: a poll late by a stall makes
  // one long interval whose rate shows the stall.
  next_interval_ = now + interval_ticks_;
}

void BandwidthWindow::close_intervals(std::uint64_t now, std::uint64_t completed) {
  if (!interval_ticks_ || interval_edges_.empty()) return;
  interval_edges_.push_back({now, completed});
  intervals_closed_ = true;
  next_interval_ = ~0ull;
}

bool BandwidthWindow::checkpoint(std::uint64_t now, std::uint64_t completed,
                                 const std::vector<Lane>& lanes) {
  if (now >= next_interval_) note_interval(now, completed);
  // A stop signal in a soak: the edges still to come are due now, one per
  // checkpoint (the window closes here, the deadline at the next poll).
  if (stop_requested(completed)) next_edge_ = now;
  const bool stop = now >= next_edge_ && edge(now, completed, lanes);
  if (!stop && stop_requested(completed)) next_edge_ = now;
  next_check_ = std::min(next_edge_, next_interval_);
  return stop;
}

bool BandwidthWindow::stop_requested(std::uint64_t completed) const {
  if (!stop_early_ || !stop_early_->load(std::memory_order_relaxed)) return false;
  // Not before the window holds a message: a period without one would
  // have no figures to report.
  return edges_passed_ == 2 || (edges_passed_ == 1 && completed > begin_.completed);
}

void BandwidthWindow::note_peak(std::uint64_t now, std::uint64_t completed) {
  if (peak_counting_ && now > peak_mark_time_)
    peak_ticks_rate_ = std::max(peak_ticks_rate_, static_cast<double>(completed - peak_mark_completed_) /
                                                      static_cast<double>(now - peak_mark_time_));
  peak_mark_time_ = now;
  peak_mark_completed_ = completed;
}

bool BandwidthWindow::edge(std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes) {
  switch (edges_passed_++) {
    case 0:  // the warm-up margin is over: the window opens
      mark(begin_, now, completed, lanes);
      peak_counting_ = true;
      peak_mark_time_ = now;
      peak_mark_completed_ = completed;
      open_intervals(now, completed);
      next_edge_ = deadline_ticks_ - margin_ticks_;
      return false;
    case 1:  // the cool-down margin begins: the window closes
      note_peak(now, completed);
      mark(end_, now, completed, lanes);
      peak_counting_ = false;
      close_intervals(now, completed);
      next_edge_ = deadline_ticks_;
      return false;
    default:  // the deadline
      next_edge_ = ~0ull;
      return true;
  }
}

void BandwidthWindow::finish(std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes) {
  if (timed()) return;  // the window's edges were marked on the way
  note_peak(now, completed);
  mark(end_, now, completed, lanes);
  close_intervals(now, completed);
  edges_passed_ = 2;
}

BandwidthFigures BandwidthWindow::figures(std::uint64_t bytes, double ticks_per_us) const {
  require(edges_passed_ >= 2,
          "the -D run ended before its timing window closed (the peer stopped early?)");
  BandwidthFigures b;
  b.messages = end_.completed - begin_.completed;
  const double us = static_cast<double>(end_.time - begin_.time) / ticks_per_us;
  require(us > 0 && b.messages > 0,
          fmt::format("no message completed inside the timed window of {:.0f} us; lengthen -D "
                      "or check the fabric",
                      us));
  b.seconds = us / 1e6;
  b.average_mb_per_s = static_cast<double>(b.messages * bytes) / us;  // bytes per us == MB/s
  b.message_rate_mpps = static_cast<double>(b.messages) / us;
  b.peak_mb_per_s = std::max(b.average_mb_per_s, peak_ticks_rate_ * ticks_per_us * static_cast<double>(bytes));
  if (begin_.lanes.size() > 1)
    for (std::size_t i = 0; i < begin_.lanes.size(); ++i)
      b.per_qp_mb_per_s.push_back(static_cast<double>((end_.lanes[i] - begin_.lanes[i]) * bytes) / us);
  return b;
}

std::optional<BandwidthOverTime> BandwidthWindow::over_time(std::uint64_t bytes,
                                                           double ticks_per_us) const {
  if (!intervals_closed_) return std::nullopt;
  std::vector<RateEdge> edges;
  edges.reserve(interval_edges_.size());
  const std::uint64_t origin = interval_edges_.front().time;
  for (const auto& e : interval_edges_)
    edges.push_back(RateEdge{static_cast<double>(e.time - origin) / ticks_per_us / 1e6, e.completed * bytes});
  const double interval_ms = static_cast<double>(interval_ticks_) / ticks_per_us / 1e3;
  return bandwidth_over_time(edges, interval_ms, /*last_is_tail=*/true, intervals_cut_short_);
}

}  // namespace rdmabench::detail
