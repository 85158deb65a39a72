// build_schedule(): one builder per pairing group, disallowed pairs dropped,
// the groups' rounds laid side by side.

#include <algorithm>
#include <array>
#include <utility>

#include "rdmabench/verbs/error.hpp"
#include "schedule_builders.hpp"

namespace rdmabench::sweep {

namespace {

constexpr std::array<std::pair<Pattern, std::string_view>, 5> kPatternNames{{
    {Pattern::pairwise, "pairwise"},
    {Pattern::ring, "ring"},
    {Pattern::incast, "incast"},
    {Pattern::all_to_all, "all-to-all"},
    {Pattern::bisection, "bisection"},
}};

/// The incast root of one group: the member on the root rank's host (the
/// root itself when it is a member), so every rail converges on one host.
EndpointIndex incast_root(std::span<const Endpoint> endpoints, std::span<const EndpointIndex> group,
                          int root_rank) {
  const Endpoint* root = nullptr;
  for (const Endpoint& e : endpoints)
    if (e.rank == root_rank) root = &e;
  require(root != nullptr, "incast root rank " + std::to_string(root_rank) + " is not among the " +
                               std::to_string(endpoints.size()) + " ranks of the sweep",
          "choose a --root between the ranks that take part");
  for (EndpointIndex member : group)
    if (endpoints[member].rank == root_rank) return member;
  for (EndpointIndex member : group)
    if (endpoints[member].host == root->host) return member;
  throw Error("incast root " + describe(*root) + ": its host has no endpoint on rail " +
                  std::to_string(endpoints[group.front()].rail),
              "every rail needs an endpoint on the root's host; choose another --root");
}

Schedule group_schedule(std::span<const Endpoint> endpoints, std::span<const EndpointIndex> group,
                        const ScheduleOptions& options, std::uint64_t& random_state) {
  switch (options.pattern) {
    case Pattern::pairwise: return detail::pairwise_rounds(group);
    case Pattern::ring: return detail::ring_rounds(group, options.ring_both_directions);
    case Pattern::incast:
      return detail::incast_rounds(group, incast_root(endpoints, group, options.root_rank));
    case Pattern::all_to_all: return detail::all_to_all_rounds(group);
    case Pattern::bisection: return detail::bisection_rounds(group, options.repeat, random_state);
  }
  return {};
}

/// Adds `rounds` of one group to the combined schedule, round i to round i,
/// leaving out pairs the pairing options forbid.
void lay_side_by_side(Schedule& combined, const Schedule& rounds, std::span<const Endpoint> endpoints,
                      const PairingOptions& pairing) {
  if (combined.size() < rounds.size()) combined.resize(rounds.size());
  for (std::size_t r = 0; r < rounds.size(); ++r)
    for (const DirectedPair& p : rounds[r])
      if (may_pair(endpoints[p.client], endpoints[p.server], pairing)) combined[r].push_back(p);
}

}  // namespace

Pattern parse_pattern(std::string_view text) {
  for (const auto& [pattern, name] : kPatternNames)
    if (text == name) return pattern;
  throw Error("unknown --pattern '" + std::string(text) + "'",
              "choose one of pairwise, ring, incast, all-to-all, bisection");
}

std::string_view pattern_name(Pattern pattern) {
  for (const auto& [p, name] : kPatternNames)
    if (p == pattern) return name;
  return "unknown";
}

Schedule build_schedule(std::span<const Endpoint> endpoints, const ScheduleOptions& options) {
  validate_endpoints(endpoints);
  require(options.pattern != Pattern::bisection || options.repeat >= 1,
          "bisection --repeat " + std::to_string(options.repeat) + " is not a count of rounds",
          "give --repeat 1 or more");
  std::uint64_t random_state = options.seed;
  Schedule combined;
  for (const auto& group : pairing_groups(endpoints, options.pairing))
    lay_side_by_side(combined, group_schedule(endpoints, group, options, random_state), endpoints,
                     options.pairing);
  // Same-host pairs left out can empty a round; an empty round is no step.
  std::erase_if(combined, [](const Round& round) { return round.empty(); });
  require(!combined.empty(),
          "the " + std::string(pattern_name(options.pattern)) + " sweep of " +
              std::to_string(endpoints.size()) + " endpoints has no pair to measure",
          "a rail needs two endpoints (and two hosts with skip-same-host); use cross-rail to mix rails");
  return combined;
}

Schedule pack_into_rounds(std::span<const DirectedPair> pairs) {
  Schedule rounds;
  auto busy_in = [](const Round& round, const DirectedPair& p) {
    for (const DirectedPair& q : round)
      if (q.client == p.client || q.client == p.server || q.server == p.client || q.server == p.server)
        return true;
    return false;
  };
  for (const DirectedPair& p : pairs) {
    auto fits = std::find_if(rounds.begin(), rounds.end(), [&](const Round& r) { return !busy_in(r, p); });
    if (fits == rounds.end()) rounds.push_back({p});
    else fits->push_back(p);
  }
  return rounds;
}

}  // namespace rdmabench::sweep
