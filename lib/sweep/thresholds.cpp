// Which pairs miss the limits: absolute, line-rate and relative ones.

#include <algorithm>

#include "rdmabench/verbs/error.hpp"
#include "verdict_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

std::vector<double> measured_values(const PairMatrix& matrix) {
  std::vector<double> values;
  for (EndpointIndex c = 0; c < matrix.size(); ++c)
    for (EndpointIndex s = 0; s < matrix.size(); ++s)
      if (matrix.at(c, s).state == CellState::measured) values.push_back(matrix.at(c, s).value);
  std::sort(values.begin(), values.end());
  return values;
}

/// The middle value; the mean of the two middle ones for an even count.
std::optional<double> median_of(const std::vector<double>& sorted) {
  if (sorted.empty()) return std::nullopt;
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

void check_fits(const Figure& figure, const Thresholds& t) {
  const bool higher = figure.better == Better::higher;
  require(higher || (!t.min_share_of_line_rate && !t.min_share_of_median),
          "sweep verdict: a share of line rate or of the median is a floor, but " + figure.name +
              " is better when lower",
          "for a lower-is-better figure use an absolute maximum or a multiple of the best pair");
  require(!higher || !t.max_multiple_of_best,
          "sweep verdict: a multiple of the best pair is a ceiling, but " + figure.name + " is better when higher",
          "for a higher-is-better figure use a share of the median pair");
  require(!t.min_share_of_line_rate || t.port_rate > 0,
          "sweep verdict: a share of line rate needs the port rate, and none was given",
          "pass the port rate in " + figure.unit + " along with the share");
}

}  // namespace

Limits resolve_limits(const PairMatrix& matrix, const Figure& figure, const Thresholds& t) {
  check_fits(figure, t);
  const std::vector<double> values = measured_values(matrix);
  Limits limits{t.absolute, std::nullopt, median_of(values), figure.better};
  if (t.min_share_of_line_rate) {
    const double line_floor = *t.min_share_of_line_rate * t.port_rate;
    limits.absolute = std::max(limits.absolute.value_or(line_floor), line_floor);
  }
  if (t.min_share_of_median && limits.median) limits.relative = *t.min_share_of_median * *limits.median;
  if (t.max_multiple_of_best && !values.empty()) limits.relative = *t.max_multiple_of_best * values.front();
  return limits;
}

std::vector<PairJudgement> judge_pairs(const PairMatrix& matrix, const Limits& limits) {
  auto misses = [&](double value, const std::optional<double>& limit) {
    if (!limit) return false;
    return limits.better == Better::higher ? value < *limit : value > *limit;
  };
  std::vector<PairJudgement> judged;
  for (EndpointIndex c = 0; c < matrix.size(); ++c)
    for (EndpointIndex s = 0; s < matrix.size(); ++s) {
      const Cell& cell = matrix.at(c, s);
      if (cell.state == CellState::not_measured) continue;
      PairJudgement j{{c, s}, cell.state, cell.value, cell.cause};
      if (cell.state == CellState::measured) {
        j.fails_absolute = misses(cell.value, limits.absolute);
        j.fails_relative = misses(cell.value, limits.relative);
      }
      judged.push_back(std::move(j));
    }
  return judged;
}

}  // namespace rdmabench::sweep::detail
