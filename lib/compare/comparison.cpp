// compare_sides(): every figure of every matched test, its change and verdict,
// worst first. Each row's bootstrap has a seed of its own, made from the
// given seed and the row's test and figure, so a row's interval does not
// change when other rows come or go (another file on a side, another figure).

#include "rdmabench/compare/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "matching.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::compare {

namespace {

/// FNV-1a: stable across runs and standard libraries (std::hash is neither).
std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

BootstrapOptions seeded_for(const BootstrapOptions& options, const std::string& what) {
  BootstrapOptions o = options;
  o.seed = options.seed ^ stable_hash(what);
  return o;
}

std::vector<double> figure_values(const std::vector<const Measurement*>& repeats, const std::string& key) {
  std::vector<double> values;
  for (const Measurement* m : repeats)
    if (const auto it = m->figures.find(key); it != m->figures.end()) values.push_back(it->second);
  return values;
}

SideFigures side_figures(std::vector<double> values, const BootstrapOptions& options) {
  SideFigures s;
  s.median = median_of(values);
  if (values.size() >= kRepeatsForInterval) s.interval = bootstrap_median(values, options);
  s.values = std::move(values);
  return s;
}

bool all_below(const std::vector<double>& values, double floor) {
  return std::all_of(values.begin(), values.end(), [&](double v) { return v == 0 || v < floor; });
}

int verdict_rank(Verdict v) { return v == Verdict::regressed ? 0 : v == Verdict::same ? 1 : 2; }

}  // namespace

std::size_t Comparison::count(Verdict verdict) const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [&](const FigureComparison& r) { return r.change.verdict == verdict; }));
}

Comparison compare_sides(const RecordSet& old_side, const RecordSet& new_side, const CompareOptions& options) {
  detail::Matching matching = detail::match_sides(old_side, new_side);
  if (matching.matched.empty()) {
    std::string why;
    for (std::size_t i = 0; i < matching.unmatched.size() && i < 3; ++i) why += "\n  " + matching.unmatched[i];
    throw Error("no test of OLD matches one of NEW (the same test, size, side, endpoints and parameters):" + why,
                "compare runs of the same command; --ignore-endpoints matches tests whatever their hosts and peers");
  }
  Comparison c;
  c.old_records = old_side.measurements.size();
  c.new_records = new_side.measurements.size();
  c.matched_tests = matching.matched.size();
  c.unmatched = std::move(matching.unmatched);
  c.drift = detail::context_drift(matching.matched);
  for (const detail::MatchedTest& t : matching.matched) {
    std::set<std::string> keys;
    for (const auto* repeats : {&t.old_repeats, &t.new_repeats})
      for (const Measurement* m : *repeats)
        for (const auto& [key, value] : m->figures) keys.insert(key);
    for (const std::string& key : keys) {
      std::vector<double> olds = figure_values(t.old_repeats, key), news = figure_values(t.new_repeats, key);
      if (olds.empty() || news.empty()) {
        c.unmatched.push_back(
            fmt::format("{}: {} is in {}'s records only", key_label(t.key), key, olds.empty() ? "NEW" : "OLD"));
        continue;
      }
      FigureComparison row;
      row.key = t.key;
      row.figure = describe_figure(key);
      // A watched counter that moved less than its floor on every run of
      // either side (never, or a few times) says nothing.
      if (key.starts_with("counter_") && all_below(olds, row.figure.floor) && all_below(news, row.figure.floor)) continue;
      const std::string what = key_label(t.key) + "|" + key;
      row.change = measure_change(olds, news, options.thresholds.for_figure(row.figure), row.figure.better,
                                  seeded_for(options.bootstrap, what), row.figure.floor);
      row.old_side = side_figures(std::move(olds), seeded_for(options.bootstrap, what + "|old"));
      row.new_side = side_figures(std::move(news), seeded_for(options.bootstrap, what + "|new"));
      c.rows.push_back(std::move(row));
    }
  }
  std::stable_sort(c.rows.begin(), c.rows.end(), [](const FigureComparison& a, const FigureComparison& b) {
    if (verdict_rank(a.change.verdict) != verdict_rank(b.change.verdict))
      return verdict_rank(a.change.verdict) < verdict_rank(b.change.verdict);
    const double ba = badness(a.change), bb = badness(b.change);
    if (ba != bb) return ba > bb;
    return a.figure.order < b.figure.order;
  });
  return c;
}

std::string drift_text(const ContextDrift& drift, std::size_t matched_tests) {
  const std::string where = drift.tests == matched_tests
                                ? (matched_tests == 1 ? "in the matched test" : fmt::format("in all {} matched tests", matched_tests))
                                : fmt::format("in {} of {} matched tests, e.g. {}", drift.tests, matched_tests,
                                              drift.first_test);
  return fmt::format("{}: {} (old) -> {} (new), {}", drift.item, drift.old_values, drift.new_values, where);
}

}  // namespace rdmabench::compare
