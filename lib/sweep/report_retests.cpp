// The re-test pass of one test: each pass=retest record judged against the
// limits of the sweep it re-tests, then each suspect confirmed or cleared.

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

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
    if (row.error.empty()) row.miss = t.limits.miss(*row.value, !t.fabric_slow);
    pairs.push_back({row.pair, row.failing()});
    t.retests.push_back(std::move(row));
  }
  for (const Suspect& s : t.verdict.suspects) t.findings.push_back(assess_retest(s, pairs, endpoints));
}

std::optional<std::string> pair_failure(const TestReport& t, const PairJudgement& j) {
  if (j.state == CellState::failed) return "failed to measure: " + j.cause;
  if (j.state != CellState::measured) return std::nullopt;
  return t.limits.miss(j.value);
}

}  // namespace rdmabench::sweep::detail
