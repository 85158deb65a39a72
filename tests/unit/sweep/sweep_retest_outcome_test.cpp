// Confirming or clearing a sweep's suspects from the re-test pass
// (lib/sweep/retest_outcome.cpp): nodes, links, unattributed pairs and a
// slow fabric, on hand-made suspects and re-test pairs.

#include "catch2_compat.hpp"

#include <string>
#include <vector>

#include "rdmabench/sweep/retest_outcome.hpp"

using namespace rdmabench::sweep;

namespace {

std::vector<Endpoint> four_hosts() {
  std::vector<Endpoint> endpoints;
  for (int r = 0; r < 4; ++r) endpoints.push_back({r, "node" + std::to_string(r), "mlx5_0", 0});
  return endpoints;
}

Suspect node(EndpointIndex e) { return {SuspectKind::node, {e}, {}, {}}; }
Suspect link(EndpointIndex a, EndpointIndex b) { return {SuspectKind::link, {a, b}, {}, {}}; }

RetestPair failing(EndpointIndex c, EndpointIndex s) { return {{c, s}, true}; }
RetestPair passing(EndpointIndex c, EndpointIndex s) { return {{c, s}, false}; }

}  // namespace

TEST_CASE("a node failing with known-good partners too is confirmed", "[sweep]") {
  const auto endpoints = four_hosts();
  const std::vector<RetestPair> retests{failing(3, 1), failing(2, 3), passing(0, 1)};
  const RetestFinding f = assess_retest(node(3), retests, endpoints);
  CHECK(f.outcome == RetestOutcome::confirmed);
  CHECK(f.pairs.size() == 2);  // 0->1 does not bear on rank 3
  CHECK(f.reason == "2 of 2 re-test pairs of rank 3 with known-good partners fail");
}

TEST_CASE("a node passing with known-good partners is cleared", "[sweep]") {
  const auto endpoints = four_hosts();
  const RetestFinding f = assess_retest(node(3), std::vector{passing(3, 1), passing(2, 3)}, endpoints);
  CHECK(f.outcome == RetestOutcome::cleared);
  CHECK(f.reason == "0 of 2 re-test pairs of rank 3 with known-good partners fail");
}

TEST_CASE("a node with as many re-test pairs passing as failing stays open", "[sweep]") {
  const auto endpoints = four_hosts();
  const RetestFinding f = assess_retest(node(3), std::vector{failing(3, 1), passing(2, 3)}, endpoints);
  CHECK(f.outcome == RetestOutcome::not_retested);
  CHECK_THAT(f.reason, Catch::Contains("neither confirmed nor cleared"));
}

TEST_CASE("a suspect no re-test pair touches is not re-tested", "[sweep]") {
  const auto endpoints = four_hosts();
  const RetestFinding f = assess_retest(node(3), std::vector{failing(0, 1)}, endpoints);
  CHECK(f.outcome == RetestOutcome::not_retested);
  CHECK(f.pairs.empty());
  CHECK(f.reason == "no re-test pair involves rank 3");
}

TEST_CASE("a link whose own pair fails again is confirmed, whatever its ends do", "[sweep]") {
  const auto endpoints = four_hosts();
  const RetestFinding f = assess_retest(link(0, 1), std::vector{failing(1, 0), passing(0, 2)}, endpoints);
  CHECK(f.outcome == RetestOutcome::confirmed);
  CHECK(f.reason == "the pair rank 0-rank 1 fails again");
  CHECK(f.pairs.size() == 2);
}

TEST_CASE("a link whose own pair passes when measured again is cleared: it did not reproduce", "[sweep]") {
  const auto endpoints = four_hosts();
  const RetestFinding f = assess_retest(link(0, 1), std::vector{passing(0, 1), passing(0, 2)}, endpoints);
  CHECK(f.outcome == RetestOutcome::cleared);
  CHECK_FALSE(still_failing(f.outcome));
  CHECK(outcome_name(f.outcome) == "did not reproduce");
}

TEST_CASE("a link whose ends pass with others stays the suspect", "[sweep]") {
  const auto endpoints = four_hosts();
  const RetestFinding f = assess_retest(link(0, 1), std::vector{passing(0, 2), passing(2, 1), failing(3, 2)}, endpoints);
  CHECK(f.outcome == RetestOutcome::confirmed);
  CHECK(f.pairs.size() == 2);  // 3->2 touches neither end
  CHECK_THAT(f.reason, Catch::Contains("both ends pass"));
}

TEST_CASE("a link end that fails with others takes the blame, and the failure still counts", "[sweep]") {
  const auto endpoints = four_hosts();
  const RetestFinding f = assess_retest(link(0, 1), std::vector{passing(0, 2), failing(2, 1)}, endpoints);
  CHECK(f.outcome == RetestOutcome::elsewhere);
  CHECK(still_failing(f.outcome));
  CHECK(outcome_name(f.outcome) == "at an end");
  CHECK_THAT(f.reason, Catch::StartsWith("rank 1 fails with known-good partners too"));
}

TEST_CASE("unattributed pairs are confirmed by any failing re-test of their ends", "[sweep]") {
  const auto endpoints = four_hosts();
  const Suspect rest{SuspectKind::unattributed, {0, 1, 2}, {}, {}};
  CHECK(assess_retest(rest, std::vector{passing(0, 3), failing(3, 2)}, endpoints).outcome ==
        RetestOutcome::confirmed);
  CHECK(assess_retest(rest, std::vector{passing(0, 3), passing(3, 2)}, endpoints).outcome ==
        RetestOutcome::cleared);
}

TEST_CASE("a slow fabric is never re-tested pair by pair", "[sweep]") {
  const auto endpoints = four_hosts();
  const Suspect fabric{SuspectKind::fabric_slow, {}, {}, {}};
  const RetestFinding f = assess_retest(fabric, std::vector{failing(0, 1)}, endpoints);
  CHECK(f.outcome == RetestOutcome::not_retested);
  CHECK(outcome_name(f.outcome) == "not re-tested");
}
