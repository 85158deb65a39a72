// Confirm or clear a suspect from the re-test pass: one rule per kind of
// suspect, each reading only the re-test pairs that bear on it.

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rdmabench/sweep/retest_outcome.hpp"

namespace rdmabench::sweep {

namespace {

bool involves(const DirectedPair& p, EndpointIndex e) { return p.client == e || p.server == e; }

std::size_t count_failing(const std::vector<RetestPair>& pairs) {
  return static_cast<std::size_t>(std::count_if(pairs.begin(), pairs.end(), [](const RetestPair& r) { return r.failing; }));
}

std::string rank_of(std::span<const Endpoint> endpoints, EndpointIndex e) {
  return "rank " + std::to_string(endpoints[e].rank);
}

RetestFinding node_finding(const Suspect& s, std::span<const RetestPair> retests, std::span<const Endpoint> endpoints) {
  RetestFinding f;
  const EndpointIndex e = s.endpoints.at(0);
  for (const RetestPair& r : retests)
    if (involves(r.pair, e)) f.pairs.push_back(r);
  const std::size_t failing = count_failing(f.pairs), passing = f.pairs.size() - failing;
  const std::string counts = fmt::format("{} of {} re-test pairs of {} with known-good partners fail", failing,
                                         f.pairs.size(), rank_of(endpoints, e));
  if (f.pairs.empty()) {
    f.reason = "no re-test pair involves " + rank_of(endpoints, e);
  } else if (failing > passing) {
    f.outcome = RetestOutcome::confirmed;
    f.reason = counts;
  } else if (passing > failing) {
    f.outcome = RetestOutcome::cleared;
    f.reason = counts;
  } else {
    f.reason = counts + ": as many pass as fail, so neither confirmed nor cleared";
  }
  return f;
}

/// The link's own pair decides when it was measured again; else its ends
/// with others: an end that fails elsewhere is the suspect instead.
RetestFinding link_finding(const Suspect& s, std::span<const RetestPair> retests, std::span<const Endpoint> endpoints) {
  RetestFinding f;
  const EndpointIndex a = s.endpoints.at(0), b = s.endpoints.at(1);
  std::vector<RetestPair> own, ends;
  for (const RetestPair& r : retests) {
    if (involves(r.pair, a) && involves(r.pair, b)) own.push_back(r);
    else if (involves(r.pair, a) || involves(r.pair, b)) ends.push_back(r);
  }
  f.pairs = own;
  f.pairs.insert(f.pairs.end(), ends.begin(), ends.end());
  const std::string link = rank_of(endpoints, a) + "-" + rank_of(endpoints, b);
  if (!own.empty()) {
    const bool again = count_failing(own) > 0;
    f.outcome = again ? RetestOutcome::confirmed : RetestOutcome::cleared;
    f.reason = again ? "the pair " + link + " fails again" : "the pair " + link + " passes when measured again";
    return f;
  }
  if (ends.empty()) {
    f.reason = "no re-test pair involves " + link;
    return f;
  }
  std::vector<std::string> failing_ends;
  for (EndpointIndex e : {a, b})
    if (std::any_of(ends.begin(), ends.end(), [&](const RetestPair& r) { return r.failing && involves(r.pair, e); }))
      failing_ends.push_back(rank_of(endpoints, e));
  if (failing_ends.empty()) {
    f.outcome = RetestOutcome::confirmed;
    f.reason = "both ends pass with known-good partners, so the link between them stays the suspect";
  } else {
    f.outcome = RetestOutcome::elsewhere;
    f.reason = fmt::format("{} fails with known-good partners too, so the fault is there rather than in the link",
                           fmt::join(failing_ends, " and "));
  }
  return f;
}

RetestFinding unattributed_finding(const Suspect& s, std::span<const RetestPair> retests) {
  RetestFinding f;
  for (const RetestPair& r : retests)
    if (std::any_of(s.endpoints.begin(), s.endpoints.end(), [&](EndpointIndex e) { return involves(r.pair, e); }))
      f.pairs.push_back(r);
  const std::size_t failing = count_failing(f.pairs);
  if (f.pairs.empty()) {
    f.reason = "no re-test pair involves these endpoints";
  } else {
    f.outcome = failing > 0 ? RetestOutcome::confirmed : RetestOutcome::cleared;
    f.reason = fmt::format("{} of {} re-test pairs of these endpoints fail", failing, f.pairs.size());
  }
  return f;
}

}  // namespace

std::string_view outcome_name(RetestOutcome outcome) {
  switch (outcome) {
    case RetestOutcome::confirmed: return "confirmed";
    case RetestOutcome::cleared: return "did not reproduce";
    case RetestOutcome::elsewhere: return "at an end";
    case RetestOutcome::not_retested: return "not re-tested";
  }
  return "unknown";
}

bool still_failing(RetestOutcome outcome) { return outcome != RetestOutcome::cleared; }

RetestFinding assess_retest(const Suspect& suspect, std::span<const RetestPair> retests,
                            std::span<const Endpoint> endpoints) {
  switch (suspect.kind) {
    case SuspectKind::node: return node_finding(suspect, retests, endpoints);
    // A silent degrader is a link's pairs: its own pairs measured again decide.
    case SuspectKind::link:
    case SuspectKind::silent_degrader: return link_finding(suspect, retests, endpoints);
    case SuspectKind::unattributed: return unattributed_finding(suspect, retests);
    case SuspectKind::fabric_slow: break;
  }
  return {RetestOutcome::not_retested, {}, "a slow fabric has no known-good partner to re-test against"};
}

}  // namespace rdmabench::sweep
