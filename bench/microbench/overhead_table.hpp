#pragma once
// loop_overhead's report: where it ran (CPU, counter, compiler, build type),
// then one row per piece, and what one sample's bookkeeping is beside a real
// ib_send_lat. Printed only once every piece has run, so that a partial
// table never passes for a whole one.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "microbench/piece_timing.hpp"

namespace rdmabench::microbench {

struct OverheadRow {
  std::string piece;
  PieceTiming timing;
};

struct OverheadRun {
  std::uint64_t iterations = 0;
  unsigned repeats = 0;
  double counter_ticks_per_us = 0;  ///< TscClock's calibrated rate
  std::string clock_a_run_picks;    ///< what choose_clock(automatic) says here
  std::vector<OverheadRow> rows;
  std::string whole_sample;  ///< the row compared with ib_send_lat
};

/// One-way latency of ib_send_lat (2 bytes, RC) on a current NIC pair
/// back to back: the figure our bookkeeping is measured against.
inline constexpr double kRealSendLatencyUs = 0.8;

void print_overhead_table(std::ostream& out, const OverheadRun& run);

}  // namespace rdmabench::microbench
