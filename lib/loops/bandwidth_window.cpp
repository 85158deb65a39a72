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
                                       std::uint64_t peak_span, std::size_t lanes) {
  BandwidthWindow w = counted(peak_span, lanes);
  const double ticks = static_cast<double>(duration_s) * 1e6 * ticks_per_us;
  w.deadline_ticks_ = static_cast<std::uint64_t>(ticks);
  w.margin_ticks_ = static_cast<std::uint64_t>(ticks / 10);
  return w;
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
  if (timed()) {
    // Until the window opens, nothing counts towards the peak either.
    peak_counting_ = false;
    deadline_ticks_ += now;
    next_check_ = now + margin_ticks_;
  }
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
      next_check_ = deadline_ticks_ - margin_ticks_;
      return false;
    case 1:  // the cool-down margin begins: the window closes
      note_peak(now, completed);
      mark(end_, now, completed, lanes);
      peak_counting_ = false;
      next_check_ = deadline_ticks_;
      return false;
    default:  // the deadline
      next_check_ = ~0ull;
      return true;
  }
}

void BandwidthWindow::finish(std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes) {
  if (timed()) return;  // the window's edges were marked on the way
  note_peak(now, completed);
  mark(end_, now, completed, lanes);
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

}  // namespace rdmabench::detail
