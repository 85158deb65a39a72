// The one-round patterns: ring, incast and all-to-all.

#include "schedule_builders.hpp"

namespace rdmabench::sweep::detail {

Schedule ring_rounds(std::span<const EndpointIndex> group, bool both_directions) {
  const std::size_t n = group.size();
  if (n < 2) return {};
  // Two members: 0->1 and 1->0 already make up the ring in both directions.
  const std::size_t links = n == 2 ? 1 : n;
  Round forward, backward;
  for (std::size_t i = 0; i < links; ++i) {
    forward.push_back({group[i], group[(i + 1) % n]});
    backward.push_back({group[(i + 1) % n], group[i]});
  }
  if (n == 2) forward.push_back(backward.front());
  Schedule rounds{forward};
  if (both_directions && n > 2) rounds.push_back(backward);
  return rounds;
}

Schedule incast_rounds(std::span<const EndpointIndex> group, EndpointIndex root) {
  Round round;
  for (EndpointIndex member : group)
    if (member != root) round.push_back({member, root});
  return {round};
}

Schedule all_to_all_rounds(std::span<const EndpointIndex> group) {
  Round round;
  for (EndpointIndex a : group)
    for (EndpointIndex b : group)
      if (a != b) round.push_back({a, b});
  return {round};
}

}  // namespace rdmabench::sweep::detail
