#pragma once
/// @file
/// Whether a sweep's re-test bears out its suspects. The re-test measures
/// the suspects' ends against known-good partners (Verdict::retest): a node
/// that fails with good partners too is confirmed; a link whose ends pass
/// with others stays the suspect, unless its own pair, measured again,
/// passes now.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdmabench/sweep/verdict.hpp"

namespace rdmabench::sweep {

/// One re-test measurement, judged against the limits of the sweep it
/// re-tests (a failure to measure is failing too).
struct RetestPair {
  DirectedPair pair;
  bool failing = false;
};

enum class RetestOutcome {
  confirmed,     ///< the re-test fails where the suspect says it would
  cleared,       ///< the re-test passes where the suspect says it would fail: it did not reproduce
  elsewhere,     ///< a link's end fails with other partners too: the fault reproduces, at that end
  not_retested,  ///< no re-test pair bears on it (or a slow fabric, which has no good partner)
};
/// "confirmed", "did not reproduce", "at an end", "not re-tested".
std::string_view outcome_name(RetestOutcome outcome);
/// Whether the suspect still fails the sweep: every outcome but `cleared`
/// (a failure the re-test did not reproduce is reported, not counted).
bool still_failing(RetestOutcome outcome);

struct RetestFinding {
  RetestOutcome outcome = RetestOutcome::not_retested;
  std::vector<RetestPair> pairs;  ///< the re-test pairs that bear on the suspect
  std::string reason;             ///< why, for a person to read
};

/// What `retests` say of `suspect`; `endpoints` names the ranks in `reason`.
///
/// node e: the pairs involving e; confirmed when more fail than pass,
///   cleared when more pass than fail.
/// link a-b: its own pair (either direction) measured again decides when
///   present: failing again confirms, passing clears. Otherwise the ends'
///   pairs with others: all passing confirms the link (the ends are fine),
///   an end failing with others is `elsewhere` and names that end.
/// unattributed: confirmed when any pair of its endpoints fails again,
///   cleared when all pass.
RetestFinding assess_retest(const Suspect& suspect, std::span<const RetestPair> retests,
                            std::span<const Endpoint> endpoints);

}  // namespace rdmabench::sweep
