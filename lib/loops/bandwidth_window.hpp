#pragma once
// What part of a bandwidth run is timed, and the figures it yields. A
// counted run (-n) times everything from its start; a -D run times a window
// that leaves out a warm-up and a cool-down margin of a tenth of the
// duration each, then tells the loop to stop at the deadline. Both keep the
// best rate over consecutive spans of eight queues' worth of messages (the
// peak; see kPeakSpanQueues) without storing per-poll stamps, so memory
// does not grow with the run. With keep_intervals(), it also marks the
// first poll past each interval of the timed part (--interval), into room
// kept before timing: bandwidth over time.
#include <infiniband/verbs.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "rdmabench/report/result.hpp"
#include "rdmabench/stats/bandwidth_over_time.hpp"

namespace rdmabench::detail {

/// One queue pair's progress in a bandwidth loop.
struct Lane {
  ibv_qp* qp = nullptr;
  std::uint64_t posted = 0;
  std::uint64_t completed = 0;
  std::uint64_t target = 0;  ///< stop posting here; -D lowers it to `posted` at the deadline
};

/// Peaks are the best rate over spans of this many queues' worth of
/// messages. Completions are timed when reaped, and up to a queue's worth
/// can wait in the CQ and then be reaped in one burst, so a span reads at
/// most kPeakSpanQueues / (kPeakSpanQueues - 1) of its true rate (8/7). With
/// spans of one queue, such a burst read as 145 GB/s on a 0.4 GB/s device.
inline constexpr std::uint64_t kPeakSpanQueues = 8;

/// The intervals a counted run keeps: an hour's worth at the default 100 ms.
inline constexpr std::size_t kCountedIntervals = 36'000;

/// The peak span of `queue_pairs` queues of `depth` messages each.
inline std::uint64_t peak_span(std::uint64_t depth, std::size_t queue_pairs) {
  return kPeakSpanQueues * depth * queue_pairs;
}

class BandwidthWindow {
 public:
  /// Everything from start() to finish() is timed. `lanes`: the QPs whose
  /// shares are kept (allocated here, so that start() allocates nothing).
  static BandwidthWindow counted(std::uint64_t peak_span, std::size_t lanes);
  /// A -D run of `duration_s`: all but `margin_share` of it at either end
  /// is timed (untimed_margin_share: a tenth, none in a soak).
  static BandwidthWindow timed(std::uint32_t duration_s, double ticks_per_us, std::uint64_t peak_span,
                               std::size_t lanes, double margin_share);

  /// A soak: from here on, a set `stop` (a stop signal) ends the run at the
  /// next checkpoint (an interval's end, or the window's edges), as the
  /// deadline would, and the timed part ends there.
  void stop_early_on(const std::atomic<bool>& stop) { stop_early_ = &stop; }

  bool timed() const { return deadline_ticks_ != 0; }

  /// Marks the timed part every `interval` (0: not at all). A -D run of
  /// `duration_s` keeps every interval; a counted run (0) keeps up to
  /// kCountedIntervals, and the figures say when later ones were not kept.
  /// Call before start(): the room is allocated here.
  void keep_intervals(std::chrono::milliseconds interval, std::uint32_t duration_s, double ticks_per_us);

  /// The run starts at `now` (inside the timed region: no allocation).
  void start(std::uint64_t now);

  /// Called after each poll: records window edges and peaks; true once,
  /// when a -D run reaches its deadline and must stop posting.
  bool passed(std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes) {
    if (now >= next_check_) [[unlikely]] return checkpoint(now, completed, lanes);
    if (completed - peak_mark_completed_ >= peak_span_) note_peak(now, completed);
    return false;
  }

  /// The run ended at `now` with everything drained.
  void finish(std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes);

  /// Clock ticks of the timed part (after finish()).
  std::uint64_t elapsed_ticks() const { return end_.time - begin_.time; }

  /// Figures of the timed part, for messages of `bytes`. Throws Error when a
  /// -D window saw no message.
  BandwidthFigures figures(std::uint64_t bytes, double ticks_per_us) const;

  /// The intervals' rates and spread, for messages of `bytes` (after
  /// finish()); empty without keep_intervals() or with fewer than two whole
  /// intervals.
  std::optional<BandwidthOverTime> over_time(std::uint64_t bytes, double ticks_per_us) const;

 private:
  struct Mark {
    std::uint64_t time = 0;
    std::uint64_t completed = 0;
    std::vector<std::uint64_t> lanes;
  };
  bool checkpoint(std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes);
  bool stop_requested(std::uint64_t completed) const;
  bool edge(std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes);
  void open_intervals(std::uint64_t now, std::uint64_t completed);
  void note_interval(std::uint64_t now, std::uint64_t completed);
  void close_intervals(std::uint64_t now, std::uint64_t completed);
  void note_peak(std::uint64_t now, std::uint64_t completed);
  static void mark(Mark& m, std::uint64_t now, std::uint64_t completed, const std::vector<Lane>& lanes);

  std::uint64_t peak_span_ = 1;
  std::uint64_t margin_ticks_ = 0;
  std::uint64_t deadline_ticks_ = 0;   ///< 0: a counted run
  std::uint64_t next_check_ = ~0ull;   ///< the earlier of the two below
  std::uint64_t next_edge_ = ~0ull;    ///< the next window edge in time
  std::uint64_t next_interval_ = ~0ull;  ///< the next interval's end; ~0: none kept now
  int edges_passed_ = 0;               ///< 0: before the window, 1: inside, 2: after, 3: deadline
  Mark begin_, end_;
  std::uint64_t peak_mark_time_ = 0, peak_mark_completed_ = 0;
  bool peak_counting_ = true;          ///< peaks only inside the window
  double peak_ticks_rate_ = 0;         ///< messages per tick
  /// (time, completed) at the window's start, at each interval's end and,
  /// last, at the window's end (the partial tail).
  struct IntervalEdge {
    std::uint64_t time = 0;
    std::uint64_t completed = 0;
  };
  std::vector<IntervalEdge> interval_edges_;
  const std::atomic<bool>* stop_early_ = nullptr;
  std::uint64_t interval_ticks_ = 0;  ///< 0: no intervals kept
  std::size_t interval_capacity_ = 0;
  bool intervals_cut_short_ = false;
  bool intervals_closed_ = false;
};

}  // namespace rdmabench::detail
