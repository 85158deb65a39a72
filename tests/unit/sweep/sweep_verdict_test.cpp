// Sweep verdicts (lib/sweep) on synthetic matrices: a healthy fabric, one bad
// node, one bad link, a uniformly slow fabric, failed pairs with a cause,
// latency (lower is better), and the re-test plan.

#include "catch2_compat.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "rdmabench/sweep/verdict.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench::sweep;
using rdmabench::test::MessageContains;

namespace {

std::vector<Endpoint> hosts(int n, int rail = 0, int first_rank = 0) {
  std::vector<Endpoint> endpoints;
  for (int h = 0; h < n; ++h)
    endpoints.push_back({first_rank + h, "node" + std::to_string(h), "mlx5_" + std::to_string(rail), rail});
  return endpoints;
}

/// Every ordered pair measured; a small spread so no two figures are equal.
PairMatrix full(std::size_t n, const std::function<double(EndpointIndex, EndpointIndex)>& figure) {
  PairMatrix m(n);
  for (EndpointIndex c = 0; c < n; ++c)
    for (EndpointIndex s = 0; s < n; ++s)
      if (c != s) m.record(c, s, figure(c, s) + 0.01 * static_cast<double>((c * 7 + s * 3) % 11));
  return m;
}

const Figure kBandwidthFigure{"bandwidth", "Gb/s", Better::higher};
const Figure kP99{"p99 latency", "us", Better::lower};

Thresholds bandwidth_limits() {
  Thresholds t;
  t.absolute = 80;                // Gb/s
  t.min_share_of_median = 0.8;    // 20 % under the typical pair
  return t;
}

bool involves(const DirectedPair& p, EndpointIndex e) { return p.client == e || p.server == e; }

}  // namespace

TEST_CASE("a healthy fabric has no suspects and nothing to re-test", "[sweep]") {
  const auto endpoints = hosts(8);
  const Verdict v = judge(full(8, [](auto, auto) { return 97.0; }), endpoints, kBandwidthFigure, bandwidth_limits());
  REQUIRE(v.pairs_judged == 56);
  REQUIRE(v.pairs_failing == 0);
  REQUIRE(v.suspects.empty());
  REQUIRE(v.retest.empty());
  REQUIRE(v.median.value() == Approx(97.05).margin(0.1));
}

TEST_CASE("a slow lab fabric's figures keep three significant digits in the sentence", "[sweep]") {
  // The lab's emulated pairs run at hundredths of a Gb/s; one decimal would
  // quote every slow pair as "0.0 Gb/s".
  const auto endpoints = hosts(6);
  PairMatrix m(6);  // full()'s spread of hundredths would swamp these figures
  for (EndpointIndex c = 0; c < 6; ++c)
    for (EndpointIndex s = 0; s < 6; ++s)
      if (c != s) m.record(c, s, (c == 5 || s == 5 ? 0.0106 : 0.0536) + 0.0001 * static_cast<double>(c + s));
  Thresholds relative_only;
  relative_only.min_share_of_median = 0.5;
  const Verdict v = judge(m, endpoints, kBandwidthFigure, relative_only);
  REQUIRE(v.suspects.size() == 1);
  REQUIRE_THAT(v.suspects[0].sentence, Catch::Contains("->rank 5 0.0") && !Catch::Contains(" 0.0 Gb/s"));
  REQUIRE_THAT(v.suspects[0].sentence, Catch::Matches(".*rank [0-4]->rank 5 0\\.0[1-9][0-9]* Gb/s.*"));
}

TEST_CASE("one bad node: its pairs fail, its partners pass elsewhere", "[sweep]") {
  const auto endpoints = hosts(8);
  const PairMatrix m = full(8, [](auto c, auto s) { return c == 3 || s == 3 ? 41.0 : 97.0; });
  const Verdict v = judge(m, endpoints, kBandwidthFigure, bandwidth_limits());
  REQUIRE(v.suspects.size() == 1);
  const Suspect& node = v.suspects[0];
  REQUIRE(node.kind == SuspectKind::node);
  REQUIRE(node.endpoints == std::vector<EndpointIndex>{3});
  REQUIRE(node.evidence.size() == 14);  // 7 partners, both directions
  for (const PairJudgement& j : node.evidence) REQUIRE((j.fails_absolute && j.fails_relative));
  REQUIRE_THAT(node.sentence, Catch::Contains("node rank 3 (node3 mlx5_0, rail 0) looks bad") &&
                                  Catch::Contains("14 of its pairs fail") && Catch::Contains("41.0 Gb/s") &&
                                  Catch::Contains("pass 42 of 42"));
  // The re-test: node 3 against good endpoints, never against itself.
  REQUIRE_FALSE(v.retest.empty());
  for (const DirectedPair& p : v.retest) {
    REQUIRE(involves(p, 3));
    REQUIRE(p.client != p.server);
  }
}

TEST_CASE("one bad link: one pair fails while both ends pass elsewhere", "[sweep]") {
  const auto endpoints = hosts(8);
  auto slow_link = [](EndpointIndex c, EndpointIndex s) { return (c == 2 && s == 5) || (c == 5 && s == 2); };
  const PairMatrix m = full(8, [&](auto c, auto s) { return slow_link(c, s) ? 30.0 : 97.0; });
  const Verdict v = judge(m, endpoints, kBandwidthFigure, bandwidth_limits());
  REQUIRE(v.suspects.size() == 1);
  const Suspect& link = v.suspects[0];
  REQUIRE(link.kind == SuspectKind::link);
  REQUIRE(link.endpoints == std::vector<EndpointIndex>{2, 5});
  REQUIRE(link.evidence.size() == 2);
  REQUIRE_THAT(link.sentence, Catch::Contains("between rank 2") && Catch::Contains("and rank 5"));
  // The link's pairs are measured again, and each end is partnered with
  // good endpoints, in the failing direction.
  const auto has = [&](DirectedPair p) { return std::find(v.retest.begin(), v.retest.end(), p) != v.retest.end(); };
  REQUIRE(has({2, 5}));
  REQUIRE(has({5, 2}));
  REQUIRE(has({2, 3}));
  REQUIRE(has({6, 5}));
}

TEST_CASE("a link slow in one direction only is still a link", "[sweep]") {
  const PairMatrix m = full(6, [](auto c, auto s) { return c == 1 && s == 4 ? 20.0 : 97.0; });
  const Verdict v = judge(m, hosts(6), kBandwidthFigure, bandwidth_limits());
  REQUIRE(v.suspects.size() == 1);
  REQUIRE(v.suspects[0].kind == SuspectKind::link);
  REQUIRE(v.suspects[0].evidence.size() == 1);
}

TEST_CASE("a uniformly slow fabric is one verdict, not N bad nodes", "[sweep]") {
  const auto endpoints = hosts(8);
  const Verdict v = judge(full(8, [](auto, auto) { return 48.0; }), endpoints, kBandwidthFigure, bandwidth_limits());
  REQUIRE(v.suspects.size() == 1);
  REQUIRE(v.suspects[0].kind == SuspectKind::fabric_slow);
  REQUIRE(v.suspects[0].endpoints.empty());
  REQUIRE(v.suspects[0].evidence.size() == 56);
  REQUIRE(v.pairs_failing == 56);
  REQUIRE_THAT(v.suspects[0].sentence,
               Catch::Contains("fabric as a whole is slow") && Catch::Contains("below the limit of 80.0 Gb/s"));
  REQUIRE(v.retest.empty());
}

TEST_CASE("a slow fabric with one node slower still names that node too", "[sweep]") {
  const PairMatrix m = full(8, [](auto c, auto s) { return c == 6 || s == 6 ? 20.0 : 48.0; });
  const Verdict v = judge(m, hosts(8), kBandwidthFigure, bandwidth_limits());
  REQUIRE(v.suspects.size() == 2);
  REQUIRE(v.suspects[0].kind == SuspectKind::fabric_slow);
  REQUIRE(v.suspects[1].kind == SuspectKind::node);
  REQUIRE(v.suspects[1].endpoints == std::vector<EndpointIndex>{6});
}

TEST_CASE("without an absolute limit, nothing is called slow as a whole", "[sweep]") {
  Thresholds relative_only;
  relative_only.min_share_of_median = 0.8;
  const Verdict v = judge(full(8, [](auto, auto) { return 48.0; }), hosts(8), kBandwidthFigure, relative_only);
  REQUIRE(v.suspects.empty());
}

TEST_CASE("a share of line rate is an absolute floor", "[sweep]") {
  Thresholds t;
  t.min_share_of_line_rate = 0.9;
  t.port_rate = 100;  // Gb/s: pairs need 90
  const Verdict v = judge(full(6, [](auto, auto) { return 85.0; }), hosts(6), kBandwidthFigure, t);
  REQUIRE(v.suspects.size() == 1);
  REQUIRE(v.suspects[0].kind == SuspectKind::fabric_slow);
  REQUIRE_THAT(v.suspects[0].sentence, Catch::Contains("limit of 90.0 Gb/s"));
  t.port_rate = 0;
  REQUIRE_THROWS_MATCHES(judge(full(6, [](auto, auto) { return 85.0; }), hosts(6), kBandwidthFigure, t),
                         rdmabench::Error, MessageContains("needs the port rate"));
}

TEST_CASE("failed pairs count against their ends and carry their cause", "[sweep]") {
  const auto endpoints = hosts(6);
  PairMatrix down = full(6, [](auto, auto) { return 97.0; });
  for (EndpointIndex other = 0; other < 6; ++other)
    if (other != 4) {
      down.record_failure(4, other, "connect timed out");
      down.record_failure(other, 4, "connect timed out");
    }
  const Verdict node = judge(down, endpoints, kBandwidthFigure, bandwidth_limits());
  REQUIRE(node.suspects.size() == 1);
  REQUIRE(node.suspects[0].kind == SuspectKind::node);
  REQUIRE(node.suspects[0].endpoints == std::vector<EndpointIndex>{4});
  REQUIRE(node.suspects[0].evidence.front().state == CellState::failed);
  REQUIRE_THAT(node.suspects[0].sentence, Catch::Contains("failed (connect timed out)"));

  PairMatrix one = full(6, [](auto, auto) { return 97.0; });
  one.record_failure(0, 5, "");
  const Verdict link = judge(one, endpoints, kBandwidthFigure, bandwidth_limits());
  REQUIRE(link.suspects.size() == 1);
  REQUIRE(link.suspects[0].kind == SuspectKind::link);
  REQUIRE(link.suspects[0].evidence[0].cause == "no cause given");
  REQUIRE(link.pairs_judged == 30);
}

TEST_CASE("pairs never measured (other rails, the diagonal) are left out", "[sweep]") {
  // Rail 0: endpoints 0..4, rail 1: endpoints 5..9; only rail-local cells filled.
  std::vector<Endpoint> endpoints = hosts(5, 0, 0);
  for (const Endpoint& e : hosts(5, 1, 5)) endpoints.push_back(e);
  PairMatrix m(10);
  for (EndpointIndex c = 0; c < 10; ++c)
    for (EndpointIndex s = 0; s < 10; ++s)
      if (c != s && c / 5 == s / 5) m.record(c, s, c == 7 || s == 7 ? 30.0 : 97.0 + 0.1 * static_cast<double>(c));
  const Verdict v = judge(m, endpoints, kBandwidthFigure, bandwidth_limits());
  REQUIRE(v.pairs_judged == 40);
  REQUIRE(v.suspects.size() == 1);
  REQUIRE(v.suspects[0].endpoints == std::vector<EndpointIndex>{7});
  for (const DirectedPair& p : v.retest) {
    REQUIRE(p.client >= 5);  // re-test partners come from rail 1, which 7 reaches
    REQUIRE(p.server >= 5);
  }
}

TEST_CASE("latency: lower is better, a multiple of the best pair is the relative ceiling", "[sweep]") {
  Thresholds t;
  t.absolute = 10;  // us
  t.max_multiple_of_best = 2;
  const PairMatrix m = full(8, [](auto c, auto s) { return c == 0 || s == 0 ? 25.0 : 3.0; });
  const Verdict v = judge(m, hosts(8), kP99, t);
  REQUIRE(v.suspects.size() == 1);
  REQUIRE(v.suspects[0].kind == SuspectKind::node);
  REQUIRE(v.suspects[0].endpoints == std::vector<EndpointIndex>{0});
  REQUIRE_THAT(v.suspects[0].sentence, Catch::Contains("25.0 us"));

  const Verdict slow = judge(full(8, [](auto, auto) { return 14.0; }), hosts(8), kP99, t);
  REQUIRE(slow.suspects.size() == 1);
  REQUIRE(slow.suspects[0].kind == SuspectKind::fabric_slow);
  REQUIRE_THAT(slow.suspects[0].sentence, Catch::Contains("above the limit of 10.0 us"));
}

TEST_CASE("two endpoints that fail together cannot be told apart", "[sweep]") {
  const Verdict v = judge(full(2, [](auto, auto) { return 10.0; }), hosts(2), kBandwidthFigure, [] {
    Thresholds t;
    t.min_share_of_median = 0.8;
    return t;
  }());
  REQUIRE(v.suspects.empty());
  PairMatrix dead(2);
  dead.record_failure(0, 1, "no route");
  dead.record_failure(1, 0, "no route");
  const Verdict unknown = judge(dead, hosts(2), kBandwidthFigure, bandwidth_limits());
  REQUIRE(unknown.suspects.size() == 1);
  REQUIRE(unknown.suspects[0].kind == SuspectKind::unattributed);
  REQUIRE(unknown.suspects[0].endpoints == std::vector<EndpointIndex>{0, 1});
  // No known-good endpoint to pair with: the failing pairs themselves are
  // all the re-test there is.
  REQUIRE(unknown.retest == std::vector<DirectedPair>{{0, 1}, {1, 0}});
}

TEST_CASE("limits that do not fit the figure are refused", "[sweep]") {
  const PairMatrix m = full(4, [](auto, auto) { return 5.0; });
  Thresholds floor_on_latency;
  floor_on_latency.min_share_of_median = 0.5;
  REQUIRE_THROWS_MATCHES(judge(m, hosts(4), kP99, floor_on_latency), rdmabench::Error,
                         MessageContains("p99 latency is better when lower"));
  Thresholds ceiling_on_bandwidth;
  ceiling_on_bandwidth.max_multiple_of_best = 2;
  REQUIRE_THROWS_MATCHES(judge(m, hosts(4), kBandwidthFigure, ceiling_on_bandwidth), rdmabench::Error,
                         MessageContains("bandwidth is better when higher"));
  REQUIRE_THROWS_MATCHES(judge(m, hosts(5), kBandwidthFigure, {}), rdmabench::Error,
                         MessageContains("the matrix has 4 endpoints but the list has 5"));
}

TEST_CASE("the matrix refuses cells that are not pairs or figures", "[sweep]") {
  PairMatrix m(3);
  REQUIRE_THROWS_MATCHES(m.record(1, 1, 5.0), rdmabench::Error, MessageContains("paired with itself"));
  REQUIRE_THROWS_MATCHES(m.record(0, 3, 5.0), rdmabench::Error, MessageContains("outside the 3 endpoints"));
  REQUIRE_THROWS_MATCHES(m.record(0, 1, std::nan("")), rdmabench::Error, MessageContains("not a finite number"));
  REQUIRE(m.at(0, 1).state == CellState::not_measured);
  REQUIRE(kind_name(SuspectKind::fabric_slow) == "fabric-slow");
}
