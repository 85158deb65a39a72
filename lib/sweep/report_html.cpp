// report.html: report.md's content in one self-contained page. The
// matrices are heatmaps made of table cells (no script, no URL); the PNGs
// that tools/sweep-heatmaps drew, when present, are embedded as data: URIs.

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "rdmabench/compare/report.hpp"
#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:sans-serif;margin:2em;max-width:90em}
table{border-collapse:collapse;margin:0.5em 0 1em}
td,th{border:1px solid #999;padding:0.2em 0.5em;text-align:right}
th{background:#eee}
td.text,th.text{text-align:left}
td.none{background:#ccc}
td.failed{background:#600;color:#fff;font-weight:bold}
.note{background:#fff3c4;padding:0.5em;border-left:4px solid #e0a800}
.confirmed{color:#a00;font-weight:bold}
.cleared{color:#070;font-weight:bold}
</style>
)";

/// `verdict` is the cell's title: why the pair fails or that it passes
/// (empty for the figures that are not judged).
std::string heat_cell(const Cell& cell, const std::string& verdict, double worst, double best) {
  switch (cell.state) {
    case CellState::measured:
      return fmt::format("<td style=\"{}\" title=\"{}\">{}</td>", heat_colour(cell.value, worst, best),
                         html_escape(verdict), value_text(cell.value));
    case CellState::failed:
      return fmt::format("<td class=\"failed\" title=\"{}\">FAILED</td>", html_escape(cell.cause));
    case CellState::not_measured: break;
  }
  return "<td class=\"none\" title=\"not measured\"></td>";
}

void write_heatmap(std::ostream& out, const ReportModel& model, const TestReport& t, const FigureMatrix& f) {
  double worst = 0, best = 0;
  bool any = false;
  const bool higher = f.figure.better == Better::higher;
  for (EndpointIndex c = 0; c < f.matrix.size(); ++c)
    for (EndpointIndex s = 0; s < f.matrix.size(); ++s) {
      const Cell& cell = f.matrix.at(c, s);
      if (cell.state != CellState::measured) continue;
      const double v = cell.value;
      worst = !any ? v : higher ? std::min(worst, v) : std::max(worst, v);
      best = !any ? v : higher ? std::max(best, v) : std::min(best, v);
      any = true;
    }
  // Only the main figure is judged; the others' cells say just their value.
  const bool judged = &f == &t.main_figure();
  out << fmt::format("<table><caption>{} ({}); row: client, column: server</caption>\n<tr><th class=\"text\">"
                     "client \\ server</th>",
                     html_escape(f.figure.name), html_escape(f.figure.unit));
  for (const Endpoint& e : model.endpoints) out << "<th>" << html_escape(endpoint_label(e)) << "</th>";
  out << "</tr>\n";
  for (EndpointIndex c = 0; c < model.endpoints.size(); ++c) {
    out << "<tr><th class=\"text\">" << html_escape(endpoint_label(model.endpoints[c])) << "</th>";
    for (EndpointIndex s = 0; s < model.endpoints.size(); ++s) {
      const Cell& cell = f.matrix.at(c, s);
      const std::string verdict =
          judged ? pair_verdict(t, {{c, s}, cell.state, cell.value, cell.cause}) : "";
      out << heat_cell(cell, verdict, worst, best);
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

/// <test>-<figure>.png from tools/sweep-heatmaps, when it has run already.
void write_png(std::ostream& out, const std::filesystem::path& dir, const TestReport& t, const FigureMatrix& f) {
  const std::filesystem::path png = dir / (figure_file_stem(t.test, f.key) + ".png");
  std::ifstream in(png, std::ios::binary);
  if (!in) return;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  out << fmt::format("<p><img alt=\"{} {}\" src=\"data:image/png;base64,{}\"></p>\n", html_escape(t.test),
                     html_escape(f.figure.name), base64(bytes.str()));
}

/// The pairs past their counter limits, then a heatmap per watched counter
/// that moved (and its PNG), none for the quiet ones.
void write_counter_section(std::ostream& out, const std::filesystem::path& dir, const ReportModel& model,
                           const TestReport& t) {
  if (t.past_counter_limits.empty() && t.counter_figures.empty()) return;
  out << "<h3>Counters past their limits</h3>\n<ul>\n";
  if (t.past_counter_limits.empty()) out << "<li>None: no watched counter moved past its limit.</li>\n";
  for (const DegradedPair& d : t.past_counter_limits)
    out << "<li>" << html_escape(pair_text(model.endpoints, d.pair)) << ": " << html_escape(d.counters) << "</li>\n";
  out << "</ul>\n";
  for (const FigureMatrix& f : t.counter_figures) {
    out << "<div class=\"counter-heatmap\" id=\"" << html_escape(t.test + "-" + f.key) << "\">\n";
    write_heatmap(out, model, t, f);
    write_png(out, dir, t, f);
    out << "</div>\n";
  }
}

/// Each pair's change against the baseline as a heatmap (red worse, green
/// better, pale within the threshold), its PNG, and the pairs that moved.
void write_baseline_section(std::ostream& out, const std::filesystem::path& dir, const ReportModel& model,
                            const TestReport& t) {
  if (!t.baseline) return;
  const BaselineReport& b = *t.baseline;
  out << "<h3>Against the baseline</h3>\n<p>" << html_escape(baseline_summary(t)) << "</p>\n";
  if (b.compared == 0) return;
  const Figure& judged = t.main_figure().figure;
  out << "<div class=\"baseline-heatmap\" id=\"" << html_escape(t.test + "-" + b.change.key) << "\">\n";
  out << fmt::format("<table><caption>{} ({}); row: client, column: server</caption>\n<tr><th class=\"text\">"
                     "client \\ server</th>",
                     html_escape(b.change.figure.name), html_escape(b.change.figure.unit));
  for (const Endpoint& e : model.endpoints) out << "<th>" << html_escape(endpoint_label(e)) << "</th>";
  out << "</tr>\n";
  for (EndpointIndex c = 0; c < model.endpoints.size(); ++c) {
    out << "<tr><th class=\"text\">" << html_escape(endpoint_label(model.endpoints[c])) << "</th>";
    for (EndpointIndex s = 0; s < model.endpoints.size(); ++s) {
      const Cell& cell = b.change.matrix.at(c, s);
      if (cell.state != CellState::measured) {
        out << "<td class=\"none\" title=\"not compared\"></td>";
        continue;
      }
      out << fmt::format("<td style=\"{}\">{}</td>", change_colour(cell.value, judged.better, b.threshold),
                         html_escape(compare::change_text(cell.value / 100)));
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  write_png(out, dir, t, b.change);
  out << "</div>\n";
  if (b.moved.empty()) {
    out << "<p>No pair moved past the threshold.</p>\n";
    return;
  }
  out << fmt::format("<table><tr><th class=\"text\">pair</th><th>baseline {} ({})</th><th>now</th><th>change</th>"
                     "<th class=\"text\">verdict</th></tr>\n",
                     html_escape(judged.name), html_escape(judged.unit));
  for (const BaselineMove& m : b.moved)
    out << fmt::format("<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text {}\">{}</td>"
                       "</tr>\n",
                       html_escape(pair_text(model.endpoints, m.pair)), value_text(m.old_value),
                       value_text(m.new_value), html_escape(compare::change_text(m.change.point)),
                       m.change.verdict == compare::Verdict::regressed ? "confirmed" : "cleared",
                       compare::verdict_name(m.change.verdict));
  out << "</table>\n";
}

void write_endpoints(std::ostream& out, const ReportModel& model) {
  out << "<h2>Endpoints</h2>\n<table><tr><th>rank</th><th class=\"text\">host</th><th class=\"text\">device</th>"
         "<th>rail</th><th class=\"text\">address</th><th>port rate</th><th class=\"text\">firmware</th>"
         "<th class=\"text\">memory</th></tr>\n";
  for (const EndpointContext& c : model.contexts)
    out << fmt::format("<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td>"
                       "<td class=\"text\">{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n",
                       c.endpoint.rank, html_escape(c.endpoint.host), html_escape(c.endpoint.device), c.endpoint.rail,
                       html_escape(c.address), c.port_rate_Gbps ? value_text(*c.port_rate_Gbps) + " Gb/s" : "-",
                       html_escape(c.firmware), html_escape(c.memory));
  out << "</table>\n";
}

}  // namespace

void write_html(const std::filesystem::path& dir, const ReportModel& model, const ReportOptions& options) {
  const std::filesystem::path file = dir / "report.html";
  std::ofstream out = open_output(file);
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html_escape(options.title)
      << "</title>\n" << kStyle << "</head><body>\n<h1>" << html_escape(options.title) << "</h1>\n";
  if (!model.first_started.empty())
    out << "<p>Measured from " << html_escape(model.first_started) << " to " << html_escape(model.last_started)
        << ".</p>\n";
  for (const std::string& note : options.notes) out << "<p class=\"note\"><b>Note:</b> " << html_escape(note) << "</p>\n";
  write_endpoints(out, model);
  for (const TestReport& t : model.tests) {
    out << "<h2>" << html_escape(t.test) << "</h2>\n";
    write_heatmap(out, model, t, t.main_figure());
    write_png(out, dir, t, t.main_figure());
    write_html_pairs(out, model, t);
    write_html_verdict(out, model, t);
    write_counter_section(out, dir, model, t);
    write_baseline_section(out, dir, model, t);
    for (const FigureMatrix& f : t.figures) {
      if (&f == &t.main_figure()) continue;
      out << "<details><summary>" << html_escape(f.figure.name) << " (" << html_escape(f.figure.unit)
          << ")</summary>\n";
      write_heatmap(out, model, t, f);
      write_png(out, dir, t, f);
      out << "</details>\n";
    }
  }
  out << "</body></html>\n";
  finish_output(out, file);
}

}  // namespace rdmabench::sweep::detail
