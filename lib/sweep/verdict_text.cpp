// One sentence per suspect: whom it blames and the figures that say so.

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "value_text.hpp"
#include "verdict_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// At most this many pairs are quoted in a sentence; the evidence has all.
constexpr std::size_t kQuotedPairs = 3;

std::string figure_text(const PairJudgement& j, const Figure& figure) {
  if (j.state == CellState::failed) return "failed (" + j.cause + ")";
  return value_text(j.value) + " " + figure.unit;
}

std::string quoted_pairs(const std::vector<PairJudgement>& evidence, std::span<const Endpoint> endpoints,
                         const Figure& figure) {
  std::string text;
  for (std::size_t i = 0; i < evidence.size() && i < kQuotedPairs; ++i) {
    const PairJudgement& j = evidence[i];
    text += fmt::format("{}rank {}->rank {} {}", i == 0 ? "" : ", ", endpoints[j.pair.client].rank,
                        endpoints[j.pair.server].rank, figure_text(j, figure));
  }
  if (evidence.size() > kQuotedPairs) text += fmt::format(" and {} more", evidence.size() - kQuotedPairs);
  return text;
}

/// Pass count and total of the pairs that involve none of `ends`.
std::pair<std::size_t, std::size_t> others_passing(const std::vector<PairJudgement>& judged,
                                                   const std::vector<EndpointIndex>& ends) {
  std::size_t pass = 0, total = 0;
  for (const PairJudgement& j : judged) {
    const bool involved = std::find(ends.begin(), ends.end(), j.pair.client) != ends.end() ||
                          std::find(ends.begin(), ends.end(), j.pair.server) != ends.end();
    if (involved) continue;
    ++total;
    if (!j.failing) ++pass;
  }
  return {pass, total};
}

std::string fabric_sentence(const Suspect& s, const Figure& figure, const Limits& limits) {
  return fmt::format(
      "the fabric as a whole is slow: all {} measured pairs are {} the limit of {} {} ({} median {} {}) "
      "and none stands out from the others, so no single node or link is to blame",
      s.evidence.size(), limits.better == Better::higher ? "below" : "above", value_text(limits.absolute.value_or(0)),
      figure.unit, figure.name, value_text(limits.median.value_or(0)), figure.unit);
}

std::string sentence(const Suspect& s, std::span<const Endpoint> endpoints, const Figure& figure,
                     const Limits& limits, const std::vector<PairJudgement>& judged) {
  const auto [pass, total] = others_passing(judged, s.endpoints);
  const std::string pairs = quoted_pairs(s.evidence, endpoints, figure);
  switch (s.kind) {
    case SuspectKind::fabric_slow: return fabric_sentence(s, figure, limits);
    case SuspectKind::node:
      return fmt::format("node {} looks bad: {} of its pairs fail ({}), while the other pairs pass {} of {}",
                         describe(endpoints[s.endpoints[0]]), s.evidence.size(), pairs, pass, total);
    case SuspectKind::link:
      return fmt::format("the link or path between {} and {} looks bad: {}, while both ends pass their other pairs",
                         describe(endpoints[s.endpoints[0]]), describe(endpoints[s.endpoints[1]]), pairs);
    case SuspectKind::unattributed:
      return fmt::format("{} failing pairs fit neither one bad node nor one bad link: {}; the re-test plan "
                         "pairs their ends with known-good endpoints where there are any",
                         s.evidence.size(), pairs);
    case SuspectKind::silent_degrader: break;  // silent_degraders.cpp writes its own
  }
  return {};
}

}  // namespace

void write_sentences(std::vector<Suspect>& suspects, std::span<const Endpoint> endpoints, const Figure& figure,
                     const Limits& limits, const std::vector<PairJudgement>& judged) {
  for (Suspect& s : suspects) s.sentence = sentence(s, endpoints, figure, limits, judged);
}

}  // namespace rdmabench::sweep::detail
