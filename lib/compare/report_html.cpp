// The HTML report: the markdown's content in one self-contained page (no
// script, no URL: it is mailed, attached to CI runs and opened offline),
// with one inline SVG plot per figure: each matched test's old and new
// medians with their intervals and repeats.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "dot_plot.hpp"
#include "report/html_escape.hpp"
#include "report_text.hpp"

namespace rdmabench::compare {

namespace {

constexpr const char* kCompareStyle = R"(<style>
body{font-family:sans-serif;margin:2em;max-width:90em}
table{border-collapse:collapse;margin:0.5em 0 1em}
td,th{border:1px solid #999;padding:0.2em 0.5em;text-align:left}
th{background:#eee}
td.num{text-align:right}
tr.regressed td.verdict{background:#f4c7c3;font-weight:bold}
tr.improved td.verdict{background:#c8e6c9;font-weight:bold}
.warning{background:#fff3c4;padding:0.3em 0.5em;border-left:4px solid #e0a800;margin:0.3em 0}
.method{color:#444}
figure{margin:1em 0 2em}
</style>
)";

std::string verdict_colour(Verdict v) {
  return v == Verdict::regressed ? "#c0392b" : v == Verdict::improved ? "#1e8449" : "#2e6fd0";
}

void write_change_table(std::ostream& out, const Comparison& c, const ReportInputs& inputs,
                 const std::vector<std::string>& labels) {
  out << fmt::format("<table><tr><th>verdict</th><th>figure</th><th>test</th><th>old</th><th>new</th><th>change</th>"
                     "<th>{:g}% interval</th><th>threshold</th><th>note</th></tr>\n",
                     inputs.options.bootstrap.confidence * 100);
  for (const FigureComparison& r : c.rows) {
    const std::string verdict(verdict_name(r.change.verdict));
    out << fmt::format(
        "<tr class=\"{}\"><td class=\"verdict\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td>{}</td></tr>\n",
        verdict, verdict, report::html_escape(detail::figure_label(r.figure)), report::html_escape(labels[detail::test_index(c, r.key)]),
        report::html_escape(detail::side_text(r.old_side)), report::html_escape(detail::side_text(r.new_side)),
        report::html_escape(change_text(r.change.point)), report::html_escape(detail::interval_text(r.change)),
        report::html_escape(percent_text(r.change.threshold)), report::html_escape(r.change.note));
  }
  out << "</table>\n";
}

detail::DotSide dot_side(const SideFigures& s) { return {s.values, s.median, s.interval}; }

/// One plot per figure key, in the figures' report order, its rows in the
/// order of the matched tests.
void write_plots(std::ostream& out, const Comparison& c, const std::vector<std::string>& labels) {
  std::map<std::pair<int, std::string>, std::vector<const FigureComparison*>> by_figure;
  for (const FigureComparison& r : c.rows) by_figure[{r.figure.order, r.figure.key}].push_back(&r);
  for (auto& [order, rows] : by_figure) {
    std::sort(rows.begin(), rows.end(), [&](const FigureComparison* a, const FigureComparison* b) {
      return detail::test_index(c, a->key) < detail::test_index(c, b->key);
    });
    const FigureInfo& figure = rows.front()->figure;
    detail::DotPlot plot;
    plot.title = fmt::format("{}, {}", detail::figure_label(figure), better_text(figure.better));
    for (const FigureComparison* r : rows)
      plot.rows.push_back({labels[detail::test_index(c, r->key)], dot_side(r->old_side), dot_side(r->new_side),
                           verdict_colour(r->change.verdict),
                           fmt::format("{} {}", change_text(r->change.point), verdict_name(r->change.verdict))});
    out << "<figure id=\"" << report::html_escape(figure.key) << "\">" << detail::dot_plot_svg(plot) << "</figure>\n";
  }
}

}  // namespace

void write_html(std::ostream& out, const Comparison& c, const ReportInputs& inputs) {
  const std::string title = "rdma_compare: " + verdict_counts(c);
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << report::html_escape(title) << "</title>\n"
      << kCompareStyle << "</head><body>\n<h1>" << report::html_escape(title) << "</h1>\n";
  out << fmt::format("<p>OLD: {} ({} records). NEW: {} ({} records). {} matched tests.</p>\n",
                     report::html_escape(detail::files_text(inputs.old_files)), c.old_records,
                     report::html_escape(detail::files_text(inputs.new_files)), c.new_records, c.matched_tests);
  out << "<p class=\"method\">" << report::html_escape(detail::method_text(inputs)) << "</p>\n";
  if (!c.drift.empty()) {
    out << "<h2>Context that differs</h2>\n";
    for (const ContextDrift& d : c.drift)
      out << "<p class=\"warning\"><b>Warning:</b> " << report::html_escape(drift_text(d, c.matched_tests)) << "</p>\n";
  }
  const auto labels = detail::short_labels(c);
  out << "<h2>Changes, worst first</h2>\n";
  write_change_table(out, c, inputs, labels);
  out << "<h2>Old against new, per figure</h2>\n";
  write_plots(out, c, labels);
  out << "<h2>Matched tests</h2>\n<ol>\n";
  const auto keys = detail::tests_in_order(c);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string parameters = detail::distinguishing_parameters(keys, i);
    out << "<li>" << report::html_escape(labels[i]) << ": " << report::html_escape(key_label(keys[i]))
        << (parameters.empty() ? "" : " (" + report::html_escape(parameters) + ")") << "</li>\n";
  }
  out << "</ol>\n";
  std::vector<std::string> left = c.unmatched;
  for (const std::string& n : inputs.old_notes) left.push_back("OLD: " + n);
  for (const std::string& n : inputs.new_notes) left.push_back("NEW: " + n);
  if (!left.empty()) {
    out << "<h2>Not compared</h2>\n<ul>\n";
    for (const std::string& l : left) out << "<li>" << report::html_escape(l) << "</li>\n";
    out << "</ul>\n";
  }
  out << "</body></html>\n";
}

}  // namespace rdmabench::compare
