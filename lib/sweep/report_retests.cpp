// The re-test pass of one test: each pass=retest record judged against the
// limits of the sweep it re-tests, then each suspect confirmed or cleared.

#include <algorithm>

#include <fmt/format.h>

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// A pair's miss of its limits with its counters past theirs said too, or
/// a silent degrader's counters alone.
std::optional<std::string> with_counters(std::optional<std::string> miss, const std::optional<std::string>& counters) {
  if (!counters) return miss;
  if (!miss) return "silent degrader: " + *counters;
  return *miss + "; counters past their limits: " + *counters;
}

}  // namespace

void assess_retests(TestReport& t, std::span<const SweepRecord> records, std::span<const Endpoint> endpoints) {
  const std::string& key = t.main_figure().key;
  std::vector<RetestPair> pairs;
  for (const SweepRecord& r : records) {
    if (r.test != t.test || r.pass != SweepPass::retest) continue;
    RetestRow row;
    row.pair = {index_of_rank(endpoints, r.client.endpoint.rank), index_of_rank(endpoints, r.server.endpoint.rank)};
    row.error = r.error;
    for (const FigureField& f : figure_fields())
      if (f.key == key) row.value = r.figures.*f.member;
    if (row.error.empty() && !row.value) row.error = "the record holds no " + key;
    // On a slow fabric every pair misses the absolute limit; only a miss
    // relative to the others says anything of one suspect.
    if (row.error.empty()) row.miss = with_counters(t.limits.miss(*row.value, !t.fabric_slow), record_counters_past(t, r));
    pairs.push_back({row.pair, row.failing()});
    t.retests.push_back(std::move(row));
  }
  for (const Suspect& s : t.verdict.suspects) t.findings.push_back(assess_retest(s, pairs, endpoints));
}

bool did_not_reproduce(const TestReport& t, const DirectedPair& pair) {
  bool explained = false;
  for (std::size_t i = 0; i < t.verdict.suspects.size(); ++i) {
    const auto& evidence = t.verdict.suspects[i].evidence;
    if (std::none_of(evidence.begin(), evidence.end(), [&](const PairJudgement& j) { return j.pair == pair; })) continue;
    if (still_failing(t.findings.at(i).outcome)) return false;
    explained = true;
  }
  return explained;
}

std::optional<std::string> pair_failure(const TestReport& t, const PairJudgement& j) {
  if (j.state == CellState::failed) return "failed to measure: " + j.cause;
  if (j.state != CellState::measured) return std::nullopt;
  return with_counters(t.limits.miss(j.value), counters_past(t, j.pair));
}

std::string failing_count_text(const TestReport& t) {
  std::size_t not_reproduced = 0;
  const PairMatrix& m = t.main_figure().matrix;
  for (EndpointIndex c = 0; c < m.size(); ++c)
    for (EndpointIndex s = 0; s < m.size(); ++s) {
      const Cell& cell = m.at(c, s);
      if (pair_failure(t, {{c, s}, cell.state, cell.value, cell.cause}) && did_not_reproduce(t, {c, s})) ++not_reproduced;
    }
  std::string text = fmt::format("{} pairs judged, {} failing", t.verdict.pairs_judged, t.verdict.pairs_failing);
  if (not_reproduced > 0) text += fmt::format(" ({} of them did not reproduce on re-test)", not_reproduced);
  return text;
}

std::string pair_verdict(const TestReport& t, const PairJudgement& j) {
  const auto why = pair_failure(t, j);
  if (!why) return "passes";
  return did_not_reproduce(t, j.pair) ? *why + " (did not reproduce on re-test)" : *why;
}

}  // namespace rdmabench::sweep::detail
