// Sweep schedules (lib/sweep): every pattern's shape, rails side by side,
// same-host pairs left out on request, and the seeded bisection.

#include "catch2_compat.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "rdmabench/sweep/schedule.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench::sweep;
using rdmabench::test::MessageContains;

namespace {

/// `hosts` hosts with `rails` NICs each; rank h*rails+r is NIC r of host h.
std::vector<Endpoint> fabric(int hosts, int rails = 1) {
  std::vector<Endpoint> endpoints;
  for (int h = 0; h < hosts; ++h)
    for (int r = 0; r < rails; ++r)
      endpoints.push_back({h * rails + r, "node" + std::to_string(h), "mlx5_" + std::to_string(r), r});
  return endpoints;
}

std::map<std::pair<EndpointIndex, EndpointIndex>, int> count_directed(const Schedule& schedule) {
  std::map<std::pair<EndpointIndex, EndpointIndex>, int> seen;
  for (const Round& round : schedule)
    for (const DirectedPair& p : round) ++seen[{p.client, p.server}];
  return seen;
}

/// No endpoint is client or server in two pairs of one round.
bool rounds_disjoint(const Schedule& schedule) {
  for (const Round& round : schedule) {
    std::set<EndpointIndex> busy;
    for (const DirectedPair& p : round)
      if (!busy.insert(p.client).second || !busy.insert(p.server).second) return false;
  }
  return true;
}

/// Every ordered pair a->b with may(a, b) exactly once, and nothing else.
template <typename May>
void require_each_direction_once(const Schedule& schedule, std::size_t n, May may) {
  const auto seen = count_directed(schedule);
  std::size_t expected = 0;
  for (EndpointIndex a = 0; a < n; ++a)
    for (EndpointIndex b = 0; b < n; ++b)
      if (a != b && may(a, b)) {
        ++expected;
        auto it = seen.find({a, b});
        INFO("pair " << a << "->" << b);
        REQUIRE(it != seen.end());
        REQUIRE(it->second == 1);
      }
  REQUIRE(seen.size() == expected);
}

ScheduleOptions with(Pattern pattern) {
  ScheduleOptions options;
  options.pattern = pattern;
  return options;
}

}  // namespace

TEST_CASE("pairwise covers every pair once per direction in disjoint rounds, N = 2..33", "[sweep]") {
  for (int n = 2; n <= 33; ++n) {
    INFO("N = " << n);
    const auto endpoints = fabric(n);
    const Schedule schedule = build_schedule(endpoints, with(Pattern::pairwise));
    const std::size_t one_way = n % 2 == 0 ? n - 1 : n;  // circle method: an odd N sits one out per round
    REQUIRE(schedule.size() == 2 * one_way);
    REQUIRE(rounds_disjoint(schedule));
    require_each_direction_once(schedule, endpoints.size(), [](auto, auto) { return true; });
    // The second sweep is the first with the roles swapped.
    for (std::size_t r = 0; r < one_way; ++r)
      for (std::size_t i = 0; i < schedule[r].size(); ++i) {
        REQUIRE(schedule[one_way + r][i].client == schedule[r][i].server);
        REQUIRE(schedule[one_way + r][i].server == schedule[r][i].client);
      }
  }
}

TEST_CASE("pairwise with two rails pairs within each rail and runs the rails side by side", "[sweep]") {
  for (int hosts = 2; hosts <= 17; ++hosts) {
    INFO("hosts = " << hosts);
    const auto endpoints = fabric(hosts, 2);
    const Schedule schedule = build_schedule(endpoints, with(Pattern::pairwise));
    REQUIRE(schedule.size() == 2 * static_cast<std::size_t>(hosts % 2 == 0 ? hosts - 1 : hosts));
    REQUIRE(rounds_disjoint(schedule));
    require_each_direction_once(schedule, endpoints.size(),
                                [&](auto a, auto b) { return endpoints[a].rail == endpoints[b].rail; });
    std::set<int> rails_in_first_round;
    for (const DirectedPair& p : schedule.front()) rails_in_first_round.insert(endpoints[p.client].rail);
    REQUIRE(rails_in_first_round == std::set<int>{0, 1});
  }
}

TEST_CASE("cross-rail mixes rails: skip-same-host leaves out pairs of one host", "[sweep]") {
  const auto endpoints = fabric(5, 2);
  ScheduleOptions options = with(Pattern::pairwise);
  options.pairing.cross_rail = true;
  const Schedule mixed = build_schedule(endpoints, options);
  REQUIRE(rounds_disjoint(mixed));
  require_each_direction_once(mixed, endpoints.size(), [](auto, auto) { return true; });

  options.pairing.skip_same_host = true;
  const Schedule apart = build_schedule(endpoints, options);
  REQUIRE(rounds_disjoint(apart));
  require_each_direction_once(apart, endpoints.size(),
                              [&](auto a, auto b) { return endpoints[a].host != endpoints[b].host; });
}

TEST_CASE("skip-same-host within a rail drops the pairs of two NICs of one host on that rail", "[sweep]") {
  // Two NICs of node0 on rail 0, e.g. a host with a spare port cabled to the same rail.
  std::vector<Endpoint> endpoints = fabric(4);
  endpoints.push_back({9, "node0", "mlx5_1", 0});
  ScheduleOptions options = with(Pattern::pairwise);
  options.pairing.skip_same_host = true;
  const Schedule schedule = build_schedule(endpoints, options);
  require_each_direction_once(schedule, endpoints.size(),
                              [&](auto a, auto b) { return endpoints[a].host != endpoints[b].host; });
  REQUIRE(count_directed(build_schedule(endpoints, with(Pattern::pairwise))).count({0, 4}) == 1);
}

TEST_CASE("ring: each endpoint to the next, then the other way", "[sweep]") {
  const auto endpoints = fabric(5);
  const Schedule schedule = build_schedule(endpoints, with(Pattern::ring));
  REQUIRE(schedule.size() == 2);
  for (EndpointIndex i = 0; i < 5; ++i) {
    REQUIRE(schedule[0][i] == DirectedPair{i, (i + 1) % 5});
    REQUIRE(schedule[1][i] == DirectedPair{(i + 1) % 5, i});
  }
  ScheduleOptions one_way = with(Pattern::ring);
  one_way.ring_both_directions = false;
  REQUIRE(build_schedule(endpoints, one_way).size() == 1);
  // Two endpoints: the ring is the pair both ways, in one round.
  const Schedule two = build_schedule(fabric(2), with(Pattern::ring));
  REQUIRE(two.size() == 1);
  REQUIRE(two[0] == Round{{0, 1}, {1, 0}});
}

TEST_CASE("incast: every endpoint of a rail to the root's NIC on that rail, one round", "[sweep]") {
  const auto endpoints = fabric(4, 2);  // rank 2*h + r
  ScheduleOptions options = with(Pattern::incast);
  options.root_rank = 5;  // node2, rail 1; on rail 0 the root is rank 4, also node2
  const Schedule schedule = build_schedule(endpoints, options);
  REQUIRE(schedule.size() == 1);
  REQUIRE(schedule[0].size() == 6);
  for (const DirectedPair& p : schedule[0]) {
    REQUIRE(endpoints[p.server].host == "node2");
    REQUIRE(endpoints[p.server].rail == endpoints[p.client].rail);
    REQUIRE(p.client != p.server);
  }
  options.root_rank = 42;
  REQUIRE_THROWS_MATCHES(build_schedule(endpoints, options), rdmabench::Error,
                         MessageContains("incast root rank 42 is not among"));
}

TEST_CASE("incast fails clearly when the root's host has no NIC on a rail", "[sweep]") {
  std::vector<Endpoint> endpoints = fabric(3);
  endpoints.push_back({7, "node7", "mlx5_1", 1});
  endpoints.push_back({8, "node8", "mlx5_1", 1});
  ScheduleOptions options = with(Pattern::incast);
  REQUIRE_THROWS_MATCHES(build_schedule(endpoints, options), rdmabench::Error,
                         MessageContains("has no endpoint on rail 1"));
}

TEST_CASE("all-to-all: every ordered pair of a rail in one round", "[sweep]") {
  const auto endpoints = fabric(6, 2);
  const Schedule schedule = build_schedule(endpoints, with(Pattern::all_to_all));
  REQUIRE(schedule.size() == 1);
  REQUIRE(schedule[0].size() == 2 * 6 * 5);
  require_each_direction_once(schedule, endpoints.size(),
                              [&](auto a, auto b) { return endpoints[a].rail == endpoints[b].rail; });
}

TEST_CASE("bisection: each round a perfect matching across two halves, reproducible per seed", "[sweep]") {
  for (int n : {2, 7, 16, 33}) {
    INFO("N = " << n);
    ScheduleOptions options = with(Pattern::bisection);
    options.repeat = 6;
    options.seed = 12345;
    const Schedule schedule = build_schedule(fabric(n), options);
    REQUIRE(schedule.size() == 6);
    REQUIRE(rounds_disjoint(schedule));
    for (const Round& round : schedule) REQUIRE(round.size() == static_cast<std::size_t>(n / 2));
    REQUIRE(build_schedule(fabric(n), options) == schedule);
    if (n >= 16) {
      REQUIRE(schedule[0] != schedule[1]);  // each repeat draws a new split
      ScheduleOptions other = options;
      other.seed = 54321;
      REQUIRE(build_schedule(fabric(n), other) != schedule);
    }
  }
  ScheduleOptions none = with(Pattern::bisection);
  none.repeat = 0;
  REQUIRE_THROWS_MATCHES(build_schedule(fabric(4), none), rdmabench::Error, MessageContains("--repeat 0"));
}

TEST_CASE("bisection's splits do not depend on the standard library", "[sweep]") {
  // Pinned so a change of generator (or a switch to std::shuffle, whose
  // results differ between standard libraries) shows up here first.
  ScheduleOptions options = with(Pattern::bisection);
  options.seed = 1;
  const Schedule schedule = build_schedule(fabric(6), options);
  REQUIRE(schedule.size() == 1);
  REQUIRE(schedule[0] == Round{{0, 2}, {1, 4}, {3, 5}});
}

TEST_CASE("pattern names parse, and a wrong one is named with the choices", "[sweep]") {
  for (Pattern p : {Pattern::pairwise, Pattern::ring, Pattern::incast, Pattern::all_to_all, Pattern::bisection})
    REQUIRE(parse_pattern(pattern_name(p)) == p);
  REQUIRE_THROWS_MATCHES(parse_pattern("alltoall"), rdmabench::Error, MessageContains("unknown --pattern 'alltoall'"));
  try {
    parse_pattern("x");
  } catch (const rdmabench::Error& e) {
    REQUIRE(e.hint().find("all-to-all") != std::string::npos);
  }
}

TEST_CASE("endpoint lists the sweep cannot use are refused with the reason", "[sweep]") {
  std::vector<Endpoint> twice = fabric(3);
  twice[2].rank = 0;
  REQUIRE_THROWS_MATCHES(build_schedule(twice, with(Pattern::ring)), rdmabench::Error,
                         MessageContains("rank 0 appears twice"));
  std::vector<Endpoint> unnamed = fabric(3);
  unnamed[1].device.clear();
  REQUIRE_THROWS_MATCHES(build_schedule(unnamed, with(Pattern::ring)), rdmabench::Error,
                         MessageContains("no host or device"));
  REQUIRE_THROWS_MATCHES(build_schedule(fabric(1), with(Pattern::pairwise)), rdmabench::Error,
                         MessageContains("has no pair to measure"));
  std::vector<Endpoint> one_per_rail = fabric(1, 3);
  REQUIRE_THROWS_MATCHES(build_schedule(one_per_rail, with(Pattern::all_to_all)), rdmabench::Error,
                         MessageContains("has no pair to measure"));
}

TEST_CASE("pack_into_rounds keeps every pair and never an endpoint twice in a round", "[sweep]") {
  const std::vector<DirectedPair> pairs{{0, 1}, {0, 2}, {3, 0}, {2, 3}, {4, 5}, {1, 4}};
  const Schedule rounds = pack_into_rounds(pairs);
  REQUIRE(rounds_disjoint(rounds));
  std::size_t total = 0;
  for (const Round& r : rounds) total += r.size();
  REQUIRE(total == pairs.size());
  REQUIRE(rounds.size() == 3);  // endpoint 0 is in three pairs
}
