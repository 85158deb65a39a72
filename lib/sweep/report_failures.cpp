// failures.txt: one line per failing pair and one per suspect, in words a
// script can grep ("^FAIL write_bw ", "^SUSPECT node rank 3 "); empty when
// everything passed.

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

std::size_t write_failing_pairs(std::ofstream& out, const ReportModel& model, const TestReport& t) {
  std::size_t count = 0;
  const PairMatrix& m = t.main_figure().matrix;
  for (EndpointIndex c = 0; c < m.size(); ++c)
    for (EndpointIndex s = 0; s < m.size(); ++s) {
      const Cell& cell = m.at(c, s);
      const auto why = pair_failure(t, {{c, s}, cell.state, cell.value, cell.cause});
      if (!why) continue;
      out << "FAIL " << t.test << ' ' << pair_text(model.endpoints, {c, s}) << ": " << *why << '\n';
      ++count;
    }
  return count;
}

std::size_t write_suspects(std::ofstream& out, const ReportModel& model, const TestReport& t) {
  for (std::size_t i = 0; i < t.verdict.suspects.size(); ++i) {
    const Suspect& s = t.verdict.suspects[i];
    out << "SUSPECT " << suspect_label(model.endpoints, s) << ": in " << t.test << ", " << s.sentence;
    const RetestFinding& f = t.findings.at(i);
    if (f.outcome != RetestOutcome::not_retested) out << " [re-test: " << outcome_name(f.outcome) << ", " << f.reason << ']';
    out << '\n';
  }
  return t.verdict.suspects.size();
}

}  // namespace

ReportSummary write_failures(const std::filesystem::path& file, const ReportModel& model) {
  std::ofstream out = open_output(file);
  ReportSummary summary;
  for (const TestReport& t : model.tests) summary.failing_pairs += write_failing_pairs(out, model, t);
  for (const TestReport& t : model.tests) summary.suspects += write_suspects(out, model, t);
  finish_output(out, file);
  return summary;
}

}  // namespace rdmabench::sweep::detail
