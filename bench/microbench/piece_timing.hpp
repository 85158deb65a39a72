#pragma once
// Times one piece of a loop: `repeats` runs of `iterations` calls each, per
// call in nanoseconds (CLOCK_MONOTONIC_RAW) and in ticks of the CPU's
// counter, read around each run. Each figure is the median of the runs, with
// their quartiles beside it: a run that lost its CPU to another process (a
// shared VM does that every few milliseconds) moves neither, where it would
// be the highest of them.

#include <cstdint>
#include <utility>
#include <vector>

#include "rdmabench/system/clock.hpp"

namespace rdmabench::microbench {

/// Keeps `value` alive, so that the compiler neither drops a piece whose
/// result is unused nor folds iterations together (the memory clobber).
template <typename T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(value) : "memory");
}

struct Spread {
  double median = 0, low = 0, high = 0;  ///< low, high: the first and third quartiles
};
/// Of a non-empty set of figures.
Spread spread_of(std::vector<double> figures);

struct PieceTiming {
  Spread ns;     ///< per iteration
  Spread ticks;  ///< per iteration, of TscClock (the TSC, or CNTVCT_EL0)
};

/// `piece(i)` for i in [0, iterations), `repeats` times after one untimed
/// run (caches, branch predictors, the stamps' pages).
template <typename Piece>
PieceTiming time_piece(Piece& piece, std::uint64_t iterations, unsigned repeats) {
  for (std::uint64_t i = 0; i < iterations; ++i) piece(i);
  std::vector<double> ns, ticks;
  for (unsigned r = 0; r < repeats; ++r) {
    const std::uint64_t ns0 = MonotonicClock::now();
    const std::uint64_t ticks0 = TscClock::fenced_now();
    for (std::uint64_t i = 0; i < iterations; ++i) piece(i);
    const std::uint64_t ticks1 = TscClock::fenced_now();
    const std::uint64_t ns1 = MonotonicClock::now();
    ns.push_back(static_cast<double>(ns1 - ns0) / static_cast<double>(iterations));
    ticks.push_back(static_cast<double>(ticks1 - ticks0) / static_cast<double>(iterations));
  }
  return {spread_of(std::move(ns)), spread_of(std::move(ticks))};
}

}  // namespace rdmabench::microbench
