#pragma once
// Rate accuracy in a noisy emulated guest: a run's achieved/target is off
// when the sender itself stalls across an edge of the timed window (its
// backlog then leaves inside the window, or outside it), or when the host
// starves the guest's CPU for a while. One run on siw0 at 50 Mb/s under a
// sanitizer read 1.7% high (15 messages: a 40 ms backlog). The brief's rule
// for a shared, noisy machine is to repeat and take the median.
#include <algorithm>
#include <cmath>
#include <vector>

#include "catch2_compat.hpp"

namespace lab {

/// `run()` returns one run's achieved/target. A run within 1% passes; one
/// outside is repeated twice, and the median of the three must be within
/// 1%. A pacer that is off fails all three.
template <typename Run>
void check_median_ratio_within_1_percent(Run run) {
  std::vector<double> ratios{run()};
  if (std::abs(ratios[0] - 1) >= 0.01)
    for (int again = 0; again < 2; ++again) ratios.push_back(run());
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  INFO("ratios " << Catch::Detail::stringify(ratios) << ", median " << median);
  CHECK(std::abs(median - 1) < 0.01);
}

}  // namespace lab
