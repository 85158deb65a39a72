// Silent degraders: pairs within their limits whose watched counters moved
// past theirs (counter_limits.hpp). They are kept out of the node and link
// tallies, which weigh figures; each link with such pairs is a suspect of
// its own, whose sentence names the counters, so a reader learns what moved
// and where without opening results.jsonl.

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "value_text.hpp"
#include "verdict_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

const DegradedPair* degraded_entry(std::span<const DegradedPair> degraded, const DirectedPair& pair) {
  const auto it = std::find_if(degraded.begin(), degraded.end(), [&](const DegradedPair& d) { return d.pair == pair; });
  return it == degraded.end() ? nullptr : &*it;
}

std::string degrader_sentence(const Suspect& s, std::span<const DegradedPair> degraded,
                              std::span<const Endpoint> endpoints, const Figure& figure) {
  std::string pairs;
  for (const PairJudgement& j : s.evidence)
    pairs += fmt::format("{}rank {}->rank {} at {} {} has {}", pairs.empty() ? "" : "; ", endpoints[j.pair.client].rank,
                         endpoints[j.pair.server].rank, value_text(j.value), figure.unit,
                         degraded_entry(degraded, j.pair)->counters);
  return fmt::format("the path between {} and {} passes its {} limits but loses, repeats or congests packets: {}",
                     describe(endpoints[s.endpoints[0]]), describe(endpoints[s.endpoints[1]]), figure.name, pairs);
}

}  // namespace

void mark_silent_degraders(std::vector<PairJudgement>& judged, std::span<const DegradedPair> degraded) {
  for (PairJudgement& j : judged)
    j.silent_degrader = j.state == CellState::measured && !j.failing && !j.fails_absolute &&
                        degraded_entry(degraded, j.pair) != nullptr;
}

std::vector<Suspect> silent_degraders(const std::vector<PairJudgement>& judged, std::span<const DegradedPair> degraded,
                                      std::span<const Endpoint> endpoints, const Figure& figure) {
  std::map<std::pair<EndpointIndex, EndpointIndex>, std::vector<PairJudgement>> by_link;
  for (const PairJudgement& j : judged)
    if (j.silent_degrader) by_link[std::minmax(j.pair.client, j.pair.server)].push_back(j);
  std::vector<Suspect> suspects;
  for (auto& [ends, evidence] : by_link) {
    Suspect s{SuspectKind::silent_degrader, {ends.first, ends.second}, std::move(evidence), {}};
    s.sentence = degrader_sentence(s, degraded, endpoints, figure);
    suspects.push_back(std::move(s));
  }
  return suspects;
}

}  // namespace rdmabench::sweep::detail
