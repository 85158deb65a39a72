// The limits a pair is held to, as judge() resolves them, and the words for
// a pair that misses them: the figure, the limit and where the limit comes
// from, so a reader of failures.txt need not look the thresholds up.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

PairLimits::PairLimits(const PairMatrix& matrix, const Figure& figure, const Thresholds& thresholds)
    : figure_(figure), thresholds_(thresholds), limits_(resolve_limits(matrix, figure, thresholds)) {}

std::optional<std::string> PairLimits::miss(double value, bool count_absolute) const {
  const bool higher = limits_.better == Better::higher;
  auto beyond = [&](double limit) { return higher ? value < limit : value > limit; };
  const std::string side = higher ? "below" : "above";
  const std::string figure = value_text(value) + " " + figure_.unit;
  std::vector<std::string> misses;
  if (count_absolute && limits_.absolute && beyond(*limits_.absolute)) {
    std::string origin;
    const auto& t = thresholds_;
    if (t.min_share_of_line_rate && *limits_.absolute == *t.min_share_of_line_rate * t.port_rate)
      origin = fmt::format(" ({:g} x port rate {})", *t.min_share_of_line_rate, value_text(t.port_rate));
    misses.push_back(fmt::format("{} {} the limit {}{}", figure, side, value_text(*limits_.absolute), origin));
  }
  if (limits_.relative && beyond(*limits_.relative)) {
    const auto& t = thresholds_;
    const std::string base =
        t.min_share_of_median
            ? fmt::format("{:g} x median {}", *t.min_share_of_median, value_text(limits_.median.value_or(0)))
            : fmt::format("{:g} x best {}", t.max_multiple_of_best.value_or(0),
                          value_text(*limits_.relative / t.max_multiple_of_best.value_or(1)));
    misses.push_back(fmt::format("{} {} {}", figure, side, base));
  }
  if (misses.empty()) return std::nullopt;
  return fmt::format("{}", fmt::join(misses, "; "));
}

}  // namespace rdmabench::sweep::detail
