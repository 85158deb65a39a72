// Pairwise schedule by the circle (round-robin tournament) method.

#include <optional>

#include "schedule_builders.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// One direction of the tournament. Seat 0 stays put and seats 1..m-1
/// rotate by one per round, so each member meets every other exactly once
/// in m-1 rounds. An odd group gets an empty seat: whoever faces it sits out.
Schedule one_way_rounds(std::span<const EndpointIndex> group) {
  std::vector<std::optional<EndpointIndex>> seats(group.begin(), group.end());
  if (seats.size() % 2 == 1) seats.push_back(std::nullopt);
  const std::size_t m = seats.size();
  Schedule rounds;
  for (std::size_t r = 0; r + 1 < m; ++r) {
    auto at = [&](std::size_t seat) { return seat == 0 ? seats[0] : seats[1 + (seat - 1 + r) % (m - 1)]; };
    Round round;
    for (std::size_t i = 0; i < m / 2; ++i) {
      const auto a = at(i), b = at(m - 1 - i);
      if (a && b) round.push_back({*a, *b});
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

}  // namespace

Schedule pairwise_rounds(std::span<const EndpointIndex> group) {
  Schedule rounds = one_way_rounds(group);
  const std::size_t forward = rounds.size();
  for (std::size_t r = 0; r < forward; ++r) {
    Round swapped;
    for (const DirectedPair& p : rounds[r]) swapped.push_back({p.server, p.client});
    rounds.push_back(std::move(swapped));
  }
  return rounds;
}

}  // namespace rdmabench::sweep::detail
