// report.html's text sections: the worst and failed pairs, the verdict and
// the re-test, as report.md says them.

#include <fmt/format.h>

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

void write_html_pairs(std::ostream& out, const ReportModel& model, const TestReport& t) {
  const Figure& figure = t.main_figure().figure;
  out << fmt::format("<h3>Worst pairs</h3>\n<table><tr><th class=\"text\">pair</th><th>{} ({})</th>"
                     "<th class=\"text\">verdict</th></tr>\n",
                     html_escape(figure.name), html_escape(figure.unit));
  for (const PairJudgement& j : worst_pairs(t, 10))
    out << fmt::format("<tr><td class=\"text\">{}</td><td>{}</td><td class=\"text\">{}</td></tr>\n",
                       html_escape(pair_text(model.endpoints, j.pair)), value_text(j.value),
                       html_escape(pair_verdict(t, j)));
  out << "</table>\n<h3>Failed pairs</h3>\n";
  const std::vector<PairJudgement> failed = failed_pairs(t);
  if (failed.empty()) out << "<p>None: every scheduled pair gave a figure.</p>\n";
  else out << "<ul>\n";
  for (const PairJudgement& j : failed)
    out << "<li>" << html_escape(pair_text(model.endpoints, j.pair)) << ": " << html_escape(j.cause) << "</li>\n";
  if (!failed.empty()) out << "</ul>\n";
}

namespace {

void write_retests(std::ostream& out, const ReportModel& model, const TestReport& t) {
  out << "<h3>Re-test</h3>\n";
  if (t.retests.empty()) {
    out << "<p>No re-test records.</p>\n";
    return;
  }
  const Figure& figure = t.main_figure().figure;
  out << fmt::format("<table><tr><th class=\"text\">pair</th><th>{} ({})</th><th class=\"text\">result</th></tr>\n",
                     html_escape(figure.name), html_escape(figure.unit));
  for (const RetestRow& r : t.retests)
    out << fmt::format("<tr><td class=\"text\">{}</td><td>{}</td><td class=\"text\">{}</td></tr>\n",
                       html_escape(pair_text(model.endpoints, r.pair)),
                       r.value && r.error.empty() ? value_text(*r.value) : "FAILED",
                       html_escape(!r.error.empty() ? r.error : r.miss.value_or("passes")));
  out << "</table>\n<ul>\n";
  for (std::size_t i = 0; i < t.verdict.suspects.size(); ++i) {
    const RetestOutcome outcome = t.findings[i].outcome;
    const char* style = outcome == RetestOutcome::not_retested ? "" : still_failing(outcome) ? "confirmed" : "cleared";
    out << fmt::format("<li>{}: <span class=\"{}\">{}</span>, {}</li>\n",
                       html_escape(suspect_label(model.endpoints, t.verdict.suspects[i])), style,
                       outcome_name(outcome), html_escape(t.findings[i].reason));
  }
  out << "</ul>\n";
}

}  // namespace

void write_html_verdict(std::ostream& out, const ReportModel& model, const TestReport& t) {
  const Verdict& v = t.verdict;
  out << "<h3>Verdict</h3>\n";
  if (const std::string basis = basis_sentence(t); !basis.empty()) out << "<p>" << html_escape(basis) << "</p>\n";
  out << "<p>" << html_escape(failing_count_text(t));
  if (v.median) out << fmt::format("; median {} {}", value_text(*v.median), html_escape(t.main_figure().figure.unit));
  out << ".</p>\n";
  if (v.suspects.empty()) out << "<p>No suspect: no pair stands out.</p>\n";
  else out << "<ul>\n";
  for (const Suspect& s : v.suspects)
    out << "<li><b>" << kind_name(s.kind) << "</b>: " << html_escape(s.sentence) << "</li>\n";
  if (!v.suspects.empty()) out << "</ul>\n";
  write_retests(out, model, t);
}

}  // namespace rdmabench::sweep::detail
