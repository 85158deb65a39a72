// The words the reports share, so the markdown, the JSON's texts and the
// HTML say a row the same way.

#include "report_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "sweep/value_text.hpp"

namespace rdmabench::compare {

std::string change_text(double change) {
  if (std::isinf(change)) return change > 0 ? "from 0" : "to 0";
  if (change == 0) return "0%";
  const double percent = change * 100;
  const double a = std::fabs(percent);
  const std::string digits = a >= 100 ? fmt::format("{:.0f}", a) : a >= 0.1 ? fmt::format("{:.1f}", a) : fmt::format("{:.2g}", a);
  return (percent > 0 ? "+" : "-") + digits + "%";
}

std::string verdict_counts(const Comparison& c) {
  return fmt::format("{} regressed, {} same, {} improved", c.count(Verdict::regressed), c.count(Verdict::same),
                     c.count(Verdict::improved));
}

}  // namespace rdmabench::compare

namespace rdmabench::compare::detail {

using sweep::detail::value_text;

std::string files_text(const std::vector<std::string>& files) {
  std::string text;
  for (std::size_t i = 0; i < files.size() && i < 3; ++i) text += (i ? ", " : "") + files[i];
  if (files.size() > 3) text += fmt::format(" and {} more files", files.size() - 3);
  return text;
}

std::string side_text(const SideFigures& side) {
  if (side.values.size() == 1) return value_text(side.median) + " (1 run)";
  const auto [low, high] = std::minmax_element(side.values.begin(), side.values.end());
  return fmt::format("{} [{}-{}] n={}", value_text(side.median), value_text(*low), value_text(*high),
                     side.values.size());
}

std::string interval_text(const Change& change) {
  if (!change.interval) return "none (single run)";
  return change_text(change.interval->low) + " to " + change_text(change.interval->high);
}

std::vector<MatchKey> tests_in_order(const Comparison& comparison) {
  std::vector<MatchKey> keys;
  for (const FigureComparison& row : comparison.rows)
    if (std::find(keys.begin(), keys.end(), row.key) == keys.end()) keys.push_back(row.key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::size_t test_index(const Comparison& comparison, const MatchKey& key) {
  const auto keys = tests_in_order(comparison);
  return static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
}

std::vector<std::string> short_labels(const Comparison& comparison) {
  const auto keys = tests_in_order(comparison);
  std::vector<std::string> labels;
  for (const MatchKey& k : keys)
    labels.push_back(k.role == "pair" ? key_label(k) : fmt::format("{} {} B {}", k.test, k.bytes, k.role));
  // Where two tests read the same (other endpoints or parameters), each
  // gets its number in the list of matched tests.
  std::map<std::string, int> uses;
  for (const std::string& l : labels) ++uses[l];
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (uses[labels[i]] > 1) labels[i] += fmt::format(" [{}]", i + 1);
  return labels;
}

std::string distinguishing_parameters(const std::vector<MatchKey>& keys, std::size_t i) {
  std::string text;
  for (const auto& parameter : keys[i].parameters) {
    // Named copies, not a structured binding: clang before 16 cannot
    // capture a binding in a lambda.
    const std::string& name = parameter.first;
    const std::string& value = parameter.second;
    const bool differs = std::any_of(keys.begin(), keys.end(), [&](const MatchKey& other) {
      if (&other == &keys[i] || other.test != keys[i].test || other.bytes != keys[i].bytes || other.role != keys[i].role)
        return false;
      const auto it = other.parameters.find(name);
      return it == other.parameters.end() || it->second != value;
    });
    if (differs) text += (text.empty() ? "" : ", ") + name + "=" + value;
  }
  return text;
}

std::string figure_label(const FigureInfo& figure) {
  return figure.unit.empty() ? figure.name : fmt::format("{} ({})", figure.name, figure.unit);
}

std::string method_text(const ReportInputs& inputs) {
  const BootstrapOptions& b = inputs.options.bootstrap;
  const auto settings = inputs.options.thresholds.settings_text();
  std::string thresholds = "the defaults";
  for (const std::string& s : settings) thresholds += (s == settings.front() ? ", with " : ", ") + s;
  return fmt::format(
      "Each figure is the median of a test's repeats; the change is new against old. Intervals: {:g}%, a "
      "bootstrap of {} resamples of the repeats (seed {}). A change is regressed or improved only when its "
      "whole interval lies beyond the figure's threshold; with one repeat (one record) on a side there is no noise estimate, "
      "and the threshold alone decides. Thresholds: {} (docs/compare.md).",
      b.confidence * 100, b.resamples, b.seed, thresholds);
}

}  // namespace rdmabench::compare::detail
