// failures.txt: one line per failing pair and one per suspect, in words a
// script can grep ("^FAIL write_bw ", "^SUSPECT node rank 3 "); those the
// re-test did not reproduce as "^NOT REPRODUCED "; empty when everything
// passed.

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// "; judged on the median latency, of 300 samples a pair", for a latency test.
std::string basis_text(const TestReport& t) { return t.basis.empty() ? "" : "; judged on the " + t.basis; }

void write_failing_pairs(std::ofstream& out, ReportSummary& summary, const ReportModel& model, const TestReport& t) {
  const PairMatrix& m = t.main_figure().matrix;
  for (EndpointIndex c = 0; c < m.size(); ++c)
    for (EndpointIndex s = 0; s < m.size(); ++s) {
      const Cell& cell = m.at(c, s);
      const auto why = pair_failure(t, {{c, s}, cell.state, cell.value, cell.cause});
      if (!why) continue;
      const bool counted = !did_not_reproduce(t, {c, s});
      out << (counted ? "FAIL " : "NOT REPRODUCED ") << t.test << ' ' << pair_text(model.endpoints, {c, s}) << ": "
          << *why << basis_text(t) << (counted ? "" : " [passed its re-test]") << '\n';
      ++(counted ? summary.failing_pairs : summary.not_reproduced);
    }
}

void write_suspects(std::ofstream& out, ReportSummary& summary, const ReportModel& model, const TestReport& t) {
  for (std::size_t i = 0; i < t.verdict.suspects.size(); ++i) {
    const Suspect& s = t.verdict.suspects[i];
    const RetestFinding& f = t.findings.at(i);
    const bool counted = still_failing(f.outcome);
    out << (counted ? "SUSPECT " : "NOT REPRODUCED ") << suspect_label(model.endpoints, s) << ": in " << t.test
        << ", " << s.sentence << basis_text(t);
    if (f.outcome != RetestOutcome::not_retested) out << " [re-test: " << outcome_name(f.outcome) << ", " << f.reason << ']';
    out << '\n';
    ++(counted ? summary.suspects : summary.not_reproduced);
  }
}

}  // namespace

ReportSummary write_failures(const std::filesystem::path& file, const ReportModel& model) {
  std::ofstream out = open_output(file);
  ReportSummary summary;
  for (const TestReport& t : model.tests) write_failing_pairs(out, summary, model, t);
  for (const TestReport& t : model.tests) write_suspects(out, summary, model, t);
  // Against a baseline: counted for the binary's last words, not written
  // here (failures.txt lists what fails the sweep, and a move does not).
  for (const TestReport& t : model.tests)
    if (t.baseline)
      for (const BaselineMove& m : t.baseline->moved)
        ++(m.change.verdict == compare::Verdict::regressed ? summary.regressed_pairs : summary.improved_pairs);
  finish_output(out, file);
  return summary;
}

}  // namespace rdmabench::sweep::detail
