// Whom the failing pairs blame: a node, a link, or nobody in particular.
//
// A node is bad when most of its pairs fail while its partners pass most of
// their other pairs; a link is bad when a pair fails while both ends pass
// most of their other pairs. Nodes are found one at a time, worst first,
// and each one found is left out of the tallies after it, so that two bad
// nodes do not make their common partners look bad too.

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "verdict_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

struct Tally {
  std::size_t pass = 0, fail = 0;
};

class Blame {
 public:
  Blame(std::size_t endpoints, const std::vector<PairJudgement>& judged) : judged_(judged), involving_(endpoints) {
    for (std::size_t i = 0; i < judged.size(); ++i) {
      involving_[judged[i].pair.client].push_back(i);
      involving_[judged[i].pair.server].push_back(i);
    }
  }

  static EndpointIndex other_end(const PairJudgement& j, EndpointIndex e) {
    return j.pair.client == e ? j.pair.server : j.pair.client;
  }

  /// Pass and fail counts of `e`'s pairs whose other end is not excluded.
  Tally tally(EndpointIndex e, const std::vector<bool>& excluded) const {
    Tally t;
    for (std::size_t i : involving_[e])
      if (!excluded[other_end(judged_[i], e)]) (judged_[i].failing ? t.fail : t.pass)++;
    return t;
  }

  bool fine_elsewhere(EndpointIndex e, const std::vector<bool>& excluded) const {
    const Tally t = tally(e, excluded);
    return t.pass > t.fail;
  }

  std::set<EndpointIndex> partners(EndpointIndex e, const std::vector<bool>& excluded) const {
    std::set<EndpointIndex> result;
    for (std::size_t i : involving_[e])
      if (!excluded[other_end(judged_[i], e)]) result.insert(other_end(judged_[i], e));
    return result;
  }

  /// Most of `e`'s pairs fail and most of its partners pass elsewhere.
  bool is_bad_node(EndpointIndex e, std::vector<bool> excluded) const {
    const Tally own = tally(e, excluded);
    if (own.fail <= own.pass) return false;
    const std::set<EndpointIndex> others = partners(e, excluded);
    excluded[e] = true;
    const auto fine = std::count_if(others.begin(), others.end(),
                                    [&](EndpointIndex p) { return fine_elsewhere(p, excluded); });
    return static_cast<std::size_t>(fine) * 2 > others.size();
  }

  /// The bad nodes, found worst first.
  std::vector<bool> bad_nodes() const {
    std::vector<bool> bad(involving_.size(), false);
    for (bool found = true; found;) {
      found = false;
      for (EndpointIndex e : worst_first(bad))
        if (!bad[e] && is_bad_node(e, bad)) {
          bad[e] = found = true;
          break;  // the tallies change: start over without this node
        }
    }
    return bad;
  }

 private:
  std::vector<EndpointIndex> worst_first(const std::vector<bool>& excluded) const {
    std::vector<std::pair<double, EndpointIndex>> shares;
    for (EndpointIndex e = 0; e < involving_.size(); ++e) {
      const Tally t = tally(e, excluded);
      if (t.fail > 0)
        shares.emplace_back(-static_cast<double>(t.fail) / static_cast<double>(t.fail + t.pass), e);
    }
    std::sort(shares.begin(), shares.end());
    std::vector<EndpointIndex> order;
    for (const auto& [share, e] : shares) order.push_back(e);
    return order;
  }

  const std::vector<PairJudgement>& judged_;
  std::vector<std::vector<std::size_t>> involving_;
};

/// Splits the failing pairs that no bad node explains into links (both ends
/// fine elsewhere) and the rest.
void blame_links(const Blame& blame, const std::vector<bool>& bad, const std::vector<PairJudgement>& judged,
                 std::vector<Suspect>& suspects) {
  std::map<std::pair<EndpointIndex, EndpointIndex>, std::vector<PairJudgement>> by_link;
  for (const PairJudgement& j : judged)
    if (j.failing && !bad[j.pair.client] && !bad[j.pair.server])
      by_link[std::minmax(j.pair.client, j.pair.server)].push_back(j);
  Suspect rest{SuspectKind::unattributed, {}, {}, {}};
  for (auto& [ends, evidence] : by_link) {
    std::vector<bool> without_a = bad, without_b = bad;
    without_a[ends.second] = true;  // a's other pairs: everything but the link itself
    without_b[ends.first] = true;
    if (blame.fine_elsewhere(ends.first, without_a) && blame.fine_elsewhere(ends.second, without_b)) {
      suspects.push_back({SuspectKind::link, {ends.first, ends.second}, std::move(evidence), {}});
      continue;
    }
    rest.evidence.insert(rest.evidence.end(), evidence.begin(), evidence.end());
    for (EndpointIndex e : {ends.first, ends.second})
      if (std::find(rest.endpoints.begin(), rest.endpoints.end(), e) == rest.endpoints.end())
        rest.endpoints.push_back(e);
  }
  std::sort(rest.endpoints.begin(), rest.endpoints.end());
  if (!rest.evidence.empty()) suspects.push_back(std::move(rest));
}

}  // namespace

std::vector<Suspect> classify(std::size_t endpoints, const std::vector<PairJudgement>& judged) {
  const Blame blame(endpoints, judged);
  const std::vector<bool> bad = blame.bad_nodes();
  std::vector<Suspect> suspects;
  for (EndpointIndex e = 0; e < endpoints; ++e) {
    if (!bad[e]) continue;
    Suspect node{SuspectKind::node, {e}, {}, {}};
    for (const PairJudgement& j : judged)
      if (j.failing && (j.pair.client == e || j.pair.server == e)) node.evidence.push_back(j);
    suspects.push_back(std::move(node));
  }
  blame_links(blame, bad, judged, suspects);
  return suspects;
}

}  // namespace rdmabench::sweep::detail
