// The JSON report: one object, everything the markdown says with numbers
// as numbers (a change of +infinity, a counter that never moved before,
// is null with its text beside it).

#include <nlohmann/json.hpp>

#include <cmath>

#include "report_text.hpp"

namespace rdmabench::compare {

using nlohmann::json;

namespace {

/// JSON has no infinity.
json json_number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json side_json(const SideFigures& s) {
  json j{{"values", s.values}, {"median", s.median}, {"n", s.values.size()}};
  j["median_interval"] = s.interval ? json{{"low", s.interval->low}, {"high", s.interval->high}} : json(nullptr);
  return j;
}

json key_json(const MatchKey& k) {
  json j{{"test", k.test}, {"bytes", k.bytes}, {"role", k.role}, {"endpoints", k.endpoints},
         {"parameters", json::object()}, {"label", key_label(k)}};
  for (const auto& [name, value] : k.parameters) j["parameters"][name] = value;
  return j;
}

json row_json(const FigureComparison& r) {
  const Change& ch = r.change;
  json j{{"test", key_json(r.key)},
         {"figure", r.figure.key},
         {"name", r.figure.name},
         {"unit", r.figure.unit},
         {"better", r.figure.better == Better::higher ? "higher" : "lower"},
         {"old", side_json(r.old_side)},
         {"new", side_json(r.new_side)},
         {"change", json_number(ch.point)},
         {"change_text", change_text(ch.point)},
         {"threshold", ch.threshold},
         {"verdict", verdict_name(ch.verdict)},
         {"note", ch.note}};
  j["interval"] = ch.interval ? json{{"low", json_number(ch.interval->low)}, {"high", json_number(ch.interval->high)}}
                              : json(nullptr);
  return j;
}

}  // namespace

void write_json(std::ostream& out, const Comparison& c, const ReportInputs& inputs) {
  json j;
  j["tool"] = "rdma_compare";
  j["format_version"] = 1;
  j["summary"] = {{"regressed", c.count(Verdict::regressed)},
                  {"same", c.count(Verdict::same)},
                  {"improved", c.count(Verdict::improved)},
                  {"matched_tests", c.matched_tests}};
  j["old"] = {{"files", inputs.old_files}, {"records", c.old_records}, {"notes", inputs.old_notes}};
  j["new"] = {{"files", inputs.new_files}, {"records", c.new_records}, {"notes", inputs.new_notes}};
  const BootstrapOptions& b = inputs.options.bootstrap;
  j["method"] = {{"statistic", "relative change of the medians of the repeats: new / old - 1"},
                 {"interval", "bootstrap percentile interval"},
                 {"confidence", b.confidence},
                 {"resamples", b.resamples},
                 {"seed", b.seed},
                 {"threshold_settings", inputs.options.thresholds.settings_text()},
                 {"text", detail::method_text(inputs)}};
  j["context_drift"] = json::array();
  for (const ContextDrift& d : c.drift)
    j["context_drift"].push_back({{"item", d.item},
                                  {"old", d.old_values},
                                  {"new", d.new_values},
                                  {"tests", d.tests},
                                  {"text", drift_text(d, c.matched_tests)}});
  j["comparisons"] = json::array();
  for (const FigureComparison& r : c.rows) j["comparisons"].push_back(row_json(r));
  j["not_compared"] = c.unmatched;
  out << j.dump(2) << "\n";
}

}  // namespace rdmabench::compare
