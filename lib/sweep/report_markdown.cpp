// report.md: the endpoints, then per test its main figure's matrix, the
// worst pairs, the failed ones, the verdict and the re-test.

#include <fmt/format.h>

#include "rdmabench/compare/report.hpp"
#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// Table cells hold free text (causes, firmware); a '|' would end the cell.
std::string md(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|') escaped += "\\|";
    else if (c == '\n' || c == '\r') escaped += ' ';
    else escaped += c;
  }
  return escaped;
}

std::string optional_text(const std::optional<double>& v, const char* unit) {
  return v ? value_text(*v) + " " + unit : std::string("-");
}

void write_endpoints(std::ofstream& out, const ReportModel& model) {
  out << "## Endpoints\n\n| rank | host | device | rail | address | port rate | firmware | memory |\n"
      << "|---:|---|---|---:|---|---:|---|---|\n";
  for (const EndpointContext& c : model.contexts)
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", c.endpoint.rank, md(c.endpoint.host),
                       md(c.endpoint.device), c.endpoint.rail, md(c.address),
                       optional_text(c.port_rate_Gbps, "Gb/s"), md(c.firmware), md(c.memory));
  out << '\n';
}

std::string cell_text(const Cell& cell) {
  switch (cell.state) {
    case CellState::measured: return value_text(cell.value);
    case CellState::failed: return "FAILED";
    case CellState::not_measured: break;
  }
  return "-";
}

void write_matrix(std::ofstream& out, const ReportModel& model, const FigureMatrix& f) {
  out << fmt::format("{} ({}); row: client, column: server; - not measured.\n\n", f.figure.name, f.figure.unit);
  out << "| client \\ server |";
  for (const Endpoint& e : model.endpoints) out << ' ' << md(endpoint_label(e)) << " |";
  out << "\n|---|";
  for (std::size_t i = 0; i < model.endpoints.size(); ++i) out << "---:|";
  out << '\n';
  for (EndpointIndex c = 0; c < model.endpoints.size(); ++c) {
    out << "| " << md(endpoint_label(model.endpoints[c])) << " |";
    for (EndpointIndex s = 0; s < model.endpoints.size(); ++s) out << ' ' << cell_text(f.matrix.at(c, s)) << " |";
    out << '\n';
  }
  out << '\n';
}

void write_pairs(std::ofstream& out, const ReportModel& model, const TestReport& t) {
  const Figure& figure = t.main_figure().figure;
  out << fmt::format("### Worst pairs\n\n| pair | {} ({}) | verdict |\n|---|---:|---|\n", figure.name, figure.unit);
  for (const PairJudgement& j : worst_pairs(t, 10))
    out << fmt::format("| {} | {} | {} |\n", pair_text(model.endpoints, j.pair), value_text(j.value),
                       md(pair_verdict(t, j)));
  const std::vector<PairJudgement> failed = failed_pairs(t);
  out << "\n### Failed pairs\n\n";
  if (failed.empty()) out << "None: every scheduled pair gave a figure.\n";
  for (const PairJudgement& j : failed) out << "- " << pair_text(model.endpoints, j.pair) << ": " << j.cause << '\n';
  out << '\n';
}

void write_verdict(std::ofstream& out, const TestReport& t) {
  const Verdict& v = t.verdict;
  out << "### Verdict\n\n";
  if (const std::string basis = basis_sentence(t); !basis.empty()) out << md(basis) << "\n\n";
  out << failing_count_text(t);
  if (v.median) out << fmt::format("; median {} {}", value_text(*v.median), t.main_figure().figure.unit);
  out << ".\n\n";
  if (v.suspects.empty()) out << "No suspect: no pair stands out.\n";
  for (const Suspect& s : v.suspects) out << "- **" << kind_name(s.kind) << "**: " << s.sentence << '\n';
  out << '\n';
}

/// Every pair past a counter limit, by name: a silent degrader's figures
/// look fine, so the table of worst pairs may well not show it.
void write_counters(std::ofstream& out, const ReportModel& model, const TestReport& t) {
  out << "### Counters past their limits\n\n";
  if (t.past_counter_limits.empty()) out << "None: no watched counter moved past its limit.\n";
  for (const DegradedPair& d : t.past_counter_limits) {
    const bool degrader = is_silent_degrader(t, d.pair);
    out << "- " << pair_text(model.endpoints, d.pair) << (degrader ? " (silent degrader): " : " (fails its limits too): ")
        << md(d.counters) << '\n';
  }
  for (const FigureMatrix& f : t.counter_figures) {
    out << '\n';
    write_matrix(out, model, f);
  }
  out << '\n';
}

/// The change of each pair against the baseline, and the pairs that moved.
void write_baseline(std::ofstream& out, const ReportModel& model, const TestReport& t) {
  if (!t.baseline) return;
  const BaselineReport& b = *t.baseline;
  out << "### Against the baseline\n\n" << md(baseline_summary(t)) << "\n\n";
  if (b.compared == 0) return;
  write_matrix(out, model, b.change);
  if (b.moved.empty()) {
    out << "No pair moved past the threshold.\n\n";
    return;
  }
  const Figure& figure = t.main_figure().figure;
  out << fmt::format("| pair | baseline {} ({}) | now | change | verdict |\n|---|---:|---:|---:|---|\n", figure.name,
                     figure.unit);
  for (const BaselineMove& m : b.moved)
    out << fmt::format("| {} | {} | {} | {} | **{}** |\n", pair_text(model.endpoints, m.pair), value_text(m.old_value),
                       value_text(m.new_value), compare::change_text(m.change.point),
                       compare::verdict_name(m.change.verdict));
  out << '\n';
}

void write_retests(std::ofstream& out, const ReportModel& model, const TestReport& t) {
  out << "### Re-test\n\n";
  if (t.retests.empty()) {
    out << "No re-test records.\n\n";
    return;
  }
  const Figure& figure = t.main_figure().figure;
  out << fmt::format("| pair | {} ({}) | result |\n|---|---:|---|\n", figure.name, figure.unit);
  for (const RetestRow& r : t.retests)
    out << fmt::format("| {} | {} | {} |\n", pair_text(model.endpoints, r.pair),
                       r.value && r.error.empty() ? value_text(*r.value) : "FAILED",
                       md(!r.error.empty() ? r.error : r.miss.value_or("passes")));
  out << '\n';
  for (std::size_t i = 0; i < t.verdict.suspects.size(); ++i)
    out << fmt::format("- {}: **{}**, {}\n", suspect_label(model.endpoints, t.verdict.suspects[i]),
                       outcome_name(t.findings[i].outcome), t.findings[i].reason);
  out << '\n';
}

}  // namespace

void write_markdown(const std::filesystem::path& file, const ReportModel& model, const ReportOptions& options) {
  std::ofstream out = open_output(file);
  out << "# " << options.title << "\n\n";
  if (!model.first_started.empty())
    out << "Measured from " << model.first_started << " to " << model.last_started << ".\n\n";
  for (const std::string& note : options.notes) out << "> **Note:** " << note << "\n\n";
  write_endpoints(out, model);
  for (const TestReport& t : model.tests) {
    out << "## " << t.test << "\n\n";
    write_matrix(out, model, t.main_figure());
    write_pairs(out, model, t);
    write_verdict(out, t);
    write_counters(out, model, t);
    write_retests(out, model, t);
    write_baseline(out, model, t);
  }
  finish_output(out, file);
}

}  // namespace rdmabench::sweep::detail
