// <test>-<figure>.csv: the directional N x N matrix of one figure. Row is
// the client, column the server; an empty cell was not measured, FAILED
// gave no figure. Values are written in full (shortest exact form), so a
// script reads what the sweep measured, not what the report rounded.

#include <fmt/format.h>

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// RFC 4180: a field with a comma, quote or line break goes in quotes.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_cell(const Cell& cell) {
  switch (cell.state) {
    case CellState::measured: return fmt::format("{}", cell.value);
    case CellState::failed: return "FAILED";
    case CellState::not_measured: break;
  }
  return {};
}

void write_csv(const std::filesystem::path& file, const std::vector<Endpoint>& endpoints, const PairMatrix& m) {
  std::ofstream out = open_output(file);
  out << "client\\server";
  for (const Endpoint& e : endpoints) out << ',' << csv_field(endpoint_label(e));
  out << '\n';
  for (EndpointIndex c = 0; c < endpoints.size(); ++c) {
    out << csv_field(endpoint_label(endpoints[c]));
    for (EndpointIndex s = 0; s < endpoints.size(); ++s) out << ',' << csv_cell(m.at(c, s));
    out << '\n';
  }
  finish_output(out, file);
}

}  // namespace

void write_csvs(const std::filesystem::path& dir, const ReportModel& model) {
  for (const TestReport& t : model.tests) {
    for (const auto* figures : {&t.figures, &t.counter_figures})
      for (const FigureMatrix& f : *figures)
        write_csv(dir / (figure_file_stem(t.test, f.key) + ".csv"), model.endpoints, f.matrix);
    // The change against the baseline, in percent, for tools/sweep-heatmaps.
    if (t.baseline)
      write_csv(dir / (figure_file_stem(t.test, t.baseline->change.key) + ".csv"), model.endpoints,
                t.baseline->change.matrix);
  }
}

}  // namespace rdmabench::sweep::detail
