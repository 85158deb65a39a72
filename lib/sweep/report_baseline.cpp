// A sweep against an earlier sweep of the same fabric (--baseline DIR):
// each pair's judged figure against the same pair there, matched as
// rdma_compare matches sweep records (test, size, pattern, and the host,
// device and address at each end; ranks may be numbered otherwise). A sweep
// measures each pair once, so there is no noise estimate: a pair moved
// when its change passes the threshold alone, as rdma_compare judges a
// single run.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "rdmabench/compare/bootstrap.hpp"
#include "rdmabench/compare/measurement.hpp"
#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

compare::Better compare_better(Better better) {
  return better == Better::higher ? compare::Better::higher : compare::Better::lower;
}

/// The judged figure of `record` and the key that matches it across sweeps.
std::optional<std::pair<compare::MatchKey, double>> keyed_figure(const SweepRecord& record, const std::string& key) {
  std::string why;
  const auto m = compare::measurement_of_sweep_record(record, {}, why);
  if (!m) return std::nullopt;
  const auto it = m->figures.find(key);
  if (it == m->figures.end()) return std::nullopt;
  return std::make_pair(m->key, it->second);
}

int moved_rank(const BaselineMove& m) { return m.change.verdict == compare::Verdict::regressed ? 0 : 1; }

}  // namespace

void compare_with_baseline(TestReport& t, const std::vector<const SweepRecord*>& sweep,
                           std::span<const Endpoint> endpoints, const Baseline& baseline) {
  const FigureMatrix& judged = t.main_figure();
  BaselineReport b;
  b.dir = baseline.dir;
  b.change = {"change_" + judged.key, {"change of " + judged.figure.name + " against the baseline", "%",
                                       judged.figure.better},
              PairMatrix(endpoints.size())};
  b.threshold = baseline.thresholds.for_figure(compare::describe_figure(judged.key));
  std::map<compare::MatchKey, std::vector<double>> old_values;
  for (const SweepRecord& r : baseline.records)
    if (r.test == t.test)
      if (auto keyed = keyed_figure(r, judged.key)) old_values[keyed->first].push_back(keyed->second);
  // The last record of a pair wins, as in the matrices.
  std::map<std::pair<EndpointIndex, EndpointIndex>, BaselineMove> moves;
  std::map<std::pair<EndpointIndex, EndpointIndex>, bool> seen;
  for (const SweepRecord* r : sweep) {
    const auto keyed = keyed_figure(*r, judged.key);
    if (!keyed) continue;
    const EndpointIndex c = index_of_rank(endpoints, r->client.endpoint.rank);
    const EndpointIndex s = index_of_rank(endpoints, r->server.endpoint.rank);
    const auto old = old_values.find(keyed->first);
    seen[{c, s}] = old != old_values.end();
    moves.erase({c, s});
    if (old == old_values.end()) continue;
    BaselineMove move{{c, s}, compare::median_of(old->second), keyed->second, {}};
    move.change = compare::judge_change(compare::relative_change(move.old_value, move.new_value), std::nullopt,
                                        b.threshold, compare_better(judged.figure.better));
    if (std::isfinite(move.change.point)) b.change.matrix.record(c, s, move.change.point * 100);
    if (move.change.verdict != compare::Verdict::same) moves[{c, s}] = move;
  }
  for (const auto& [pair, has_baseline] : seen) ++(has_baseline ? b.compared : b.without_baseline);
  for (auto& [pair, move] : moves) b.moved.push_back(move);
  std::stable_sort(b.moved.begin(), b.moved.end(), [](const BaselineMove& x, const BaselineMove& y) {
    if (moved_rank(x) != moved_rank(y)) return moved_rank(x) < moved_rank(y);
    return compare::badness(x.change) > compare::badness(y.change);
  });
  t.baseline = std::move(b);
}

std::string baseline_summary(const TestReport& t) {
  const BaselineReport& b = *t.baseline;
  const auto count = [&](compare::Verdict v) {
    return std::count_if(b.moved.begin(), b.moved.end(), [&](const BaselineMove& m) { return m.change.verdict == v; });
  };
  std::string text = fmt::format(
      "Each pair's {} against the same pair (hosts, devices, addresses, size and pattern) in the baseline sweep {}. A sweep "
      "measures a pair once: there is no noise estimate, so a pair moved when its change passes the threshold "
      "alone ({}); rdma_compare on the two folders gives the same verdicts for every figure. ",
      t.main_figure().figure.name, b.dir, compare::percent_text(b.threshold));
  if (b.compared == 0)
    return text + fmt::format("The baseline holds none of this test's {} measured pairs.", b.without_baseline);
  text += fmt::format("{} pairs compared: {} regressed, {} improved", b.compared, count(compare::Verdict::regressed),
                      count(compare::Verdict::improved));
  if (b.without_baseline) text += fmt::format("; {} measured pairs have none in the baseline", b.without_baseline);
  return text + ".";
}

std::string change_colour(double change_percent, Better better, double threshold) {
  const double bad = (better == Better::lower ? 1 : -1) * change_percent / 100;
  // Full colour at three thresholds; within one, a pale tint.
  const double strength = std::fmin(1.0, std::fabs(bad) / (3 * threshold));
  const double lightness = std::fabs(bad) <= threshold ? 92 : 85 - 25 * strength;
  return fmt::format("background:hsl({},70%,{:.0f}%)", bad > 0 ? 0 : 120, lightness);
}

}  // namespace rdmabench::sweep::detail
