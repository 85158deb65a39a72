// The re-test plan: each failing pair's ends measured against known-good
// endpoints. For a failing client->server, client->good and good->server
// run: if only the first fails the client is to blame, if only the second
// the server, if neither the link between them. Only ends not already known
// to be good are re-tested. A link's or an unattributed suspect's failing
// pairs are measured again themselves too: a failure that does not
// reproduce fails nothing, and where every endpoint has a failing pair (no
// known-good partner at all) that is the only re-test there is.

#include <algorithm>

#include "verdict_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// How many known-good partners each end of a failing pair gets: two, so a
/// single unlucky partner does not decide the outcome.
constexpr std::size_t kPartnersPerEnd = 2;

/// Endpoints that no suspect names and that passed at least one pair.
std::vector<bool> known_good(std::size_t endpoints, const std::vector<PairJudgement>& judged,
                             const std::vector<Suspect>& suspects) {
  std::vector<bool> good(endpoints, false);
  for (const PairJudgement& j : judged)
    if (!j.failing) good[j.pair.client] = good[j.pair.server] = true;
  for (const Suspect& s : suspects)
    for (EndpointIndex e : s.endpoints) good[e] = false;
  return good;
}

/// Up to kPartnersPerEnd good endpoints that `end` was scheduled with (so
/// they share its rail), starting after `end` so the extra load spreads.
std::vector<EndpointIndex> good_partners(const PairMatrix& matrix, const std::vector<bool>& good,
                                         EndpointIndex end, EndpointIndex other_end) {
  std::vector<EndpointIndex> partners;
  const std::size_t n = matrix.size();
  for (std::size_t step = 1; step < n && partners.size() < kPartnersPerEnd; ++step) {
    const EndpointIndex g = (end + step) % n;
    const bool reachable = matrix.at(end, g).state != CellState::not_measured ||
                           matrix.at(g, end).state != CellState::not_measured;
    if (g != other_end && good[g] && reachable) partners.push_back(g);
  }
  return partners;
}

}  // namespace

std::vector<DirectedPair> plan_retest(const PairMatrix& matrix, const std::vector<PairJudgement>& judged,
                                      const std::vector<Suspect>& suspects) {
  const std::vector<bool> good = known_good(matrix.size(), judged, suspects);
  std::vector<DirectedPair> plan;
  auto add = [&plan](DirectedPair p) {
    if (std::find(plan.begin(), plan.end(), p) == plan.end()) plan.push_back(p);
  };
  for (const Suspect& suspect : suspects) {
    if (suspect.kind == SuspectKind::fabric_slow) continue;  // no good endpoint to compare with
    for (const PairJudgement& j : suspect.evidence) {
      if (suspect.kind != SuspectKind::node) add(j.pair);
      // An end already known to be good (a bad node's partner) needs no re-test.
      if (!good[j.pair.client])
        for (EndpointIndex g : good_partners(matrix, good, j.pair.client, j.pair.server)) add({j.pair.client, g});
      if (!good[j.pair.server])
        for (EndpointIndex g : good_partners(matrix, good, j.pair.server, j.pair.client)) add({g, j.pair.server});
    }
  }
  return plan;
}

}  // namespace rdmabench::sweep::detail
