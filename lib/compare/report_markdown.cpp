// The markdown report: a heading with the verdicts, the context that
// differs (first: it explains a change before any statistic does), the
// table worst first, the matched tests, and what was not compared.

#include <fmt/format.h>

#include "report_text.hpp"

namespace rdmabench::compare {

namespace {

/// A table cell: '|' would end it, a line break would end the table.
std::string md_cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

void write_markdown(std::ostream& out, const Comparison& c, const ReportInputs& inputs) {
  out << "# rdma_compare: " << verdict_counts(c) << "\n\n";
  out << fmt::format("OLD: {} ({} records). NEW: {} ({} records). {} test{} matched.\n\n",
                     detail::files_text(inputs.old_files), c.old_records, detail::files_text(inputs.new_files),
                     c.new_records, c.matched_tests,
                     c.matched_tests == 1 ? "" : "s");
  out << detail::method_text(inputs) << "\n\n";
  if (!c.drift.empty()) {
    out << "## Context that differs\n\n";
    for (const ContextDrift& d : c.drift) out << "- **warning**: " << drift_text(d, c.matched_tests) << "\n";
    out << "\n";
  }
  const auto labels = detail::short_labels(c);
  out << "## Changes, worst first\n\n";
  out << fmt::format("| verdict | figure | test | old | new | change | {:g}% interval | threshold | note |\n",
                     inputs.options.bootstrap.confidence * 100);
  out << "|---|---|---|---|---|---|---|---|---|\n";
  for (const FigureComparison& r : c.rows) {
    const std::string verdict(verdict_name(r.change.verdict));
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       r.change.verdict == Verdict::same ? verdict : "**" + verdict + "**",
                       md_cell(detail::figure_label(r.figure)), md_cell(labels[detail::test_index(c, r.key)]),
                       detail::side_text(r.old_side), detail::side_text(r.new_side), change_text(r.change.point),
                       detail::interval_text(r.change), percent_text(r.change.threshold), md_cell(r.change.note));
  }
  out << "\n## Matched tests\n\n";
  const auto keys = detail::tests_in_order(c);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out << fmt::format("{}. {}: {}", i + 1, md_cell(labels[i]), md_cell(key_label(keys[i])));
    const std::string parameters = detail::distinguishing_parameters(keys, i);
    if (!parameters.empty()) out << " (" << md_cell(parameters) << ")";
    out << "\n";
  }
  std::vector<std::string> left;
  for (const std::string& u : c.unmatched) left.push_back(u);
  for (const std::string& n : inputs.old_notes) left.push_back("OLD: " + n);
  for (const std::string& n : inputs.new_notes) left.push_back("NEW: " + n);
  if (!left.empty()) {
    out << "\n## Not compared\n\n";
    for (const std::string& l : left) out << "- " << l << "\n";
  }
}

}  // namespace rdmabench::compare
