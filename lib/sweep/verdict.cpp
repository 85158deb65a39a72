// judge(): limits, per-pair judgements, the fabric-slow rule, blame, the
// re-test plan and the sentences, in that order.

#include <algorithm>

#include "rdmabench/verbs/error.hpp"
#include "verdict_internal.hpp"

namespace rdmabench::sweep {

namespace {

/// Every measured pair misses the absolute limit (and there is one).
bool whole_fabric_misses(const std::vector<PairJudgement>& judged, const detail::Limits& limits) {
  if (!limits.absolute) return false;
  bool any_measured = false;
  for (const PairJudgement& j : judged) {
    if (j.state != CellState::measured) continue;
    any_measured = true;
    if (!j.fails_absolute) return false;
  }
  return any_measured;
}

}  // namespace

std::string_view kind_name(SuspectKind kind) {
  switch (kind) {
    case SuspectKind::node: return "node";
    case SuspectKind::link: return "link";
    case SuspectKind::fabric_slow: return "fabric-slow";
    case SuspectKind::unattributed: return "unattributed";
    case SuspectKind::silent_degrader: return "silent-degrader";
  }
  return "unknown";
}

Verdict judge(const PairMatrix& matrix, std::span<const Endpoint> endpoints, const Figure& figure,
              const Thresholds& thresholds, std::span<const DegradedPair> degraded) {
  require(matrix.size() == endpoints.size(),
          "sweep verdict: the matrix has " + std::to_string(matrix.size()) + " endpoints but the list has " +
              std::to_string(endpoints.size()),
          "judge a matrix with the endpoint list it was measured with");
  const detail::Limits limits = detail::resolve_limits(matrix, figure, thresholds);
  std::vector<PairJudgement> judged = detail::judge_pairs(matrix, limits);
  const bool fabric_slow = whole_fabric_misses(judged, limits);
  for (PairJudgement& j : judged)
    j.failing = j.state == CellState::failed || j.fails_relative || (j.fails_absolute && !fabric_slow);
  detail::mark_silent_degraders(judged, degraded);

  Verdict verdict;
  verdict.median = limits.median;
  verdict.pairs_judged = judged.size();
  verdict.pairs_failing = static_cast<std::size_t>(
      std::count_if(judged.begin(), judged.end(),
                    [](const PairJudgement& j) { return j.failing || j.fails_absolute || j.silent_degrader; }));
  if (fabric_slow) {
    Suspect fabric{SuspectKind::fabric_slow, {}, {}, {}};
    for (const PairJudgement& j : judged)
      if (j.state == CellState::measured) fabric.evidence.push_back(j);
    verdict.suspects.push_back(std::move(fabric));
  }
  for (Suspect& s : detail::classify(endpoints.size(), judged)) verdict.suspects.push_back(std::move(s));
  // Written before the degraders join: their sentences are their own.
  detail::write_sentences(verdict.suspects, endpoints, figure, limits, judged);
  for (Suspect& s : detail::silent_degraders(judged, degraded, endpoints, figure)) verdict.suspects.push_back(std::move(s));
  verdict.retest = detail::plan_retest(matrix, judged, verdict.suspects);
  return verdict;
}

}  // namespace rdmabench::sweep
