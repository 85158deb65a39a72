// Bisection: seeded random halves, paired off.

#include <utility>
#include <vector>

#include "schedule_builders.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// splitmix64: a fixed, fully specified generator. std::shuffle and the
/// std distributions differ between standard libraries, and every rank must
/// derive the very same schedule from the seed.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Fisher-Yates; the modulo bias over 64 bits is far below anything a
/// sweep could notice.
void shuffle(std::vector<EndpointIndex>& members, std::uint64_t& state) {
  for (std::size_t i = members.size(); i > 1; --i)
    std::swap(members[i - 1], members[next_random(state) % i]);
}

}  // namespace

Schedule bisection_rounds(std::span<const EndpointIndex> group, int repeat, std::uint64_t& state) {
  Schedule rounds;
  for (int r = 0; r < repeat; ++r) {
    std::vector<EndpointIndex> order(group.begin(), group.end());
    shuffle(order, state);
    // An odd group leaves its last shuffled member out of this round.
    const std::size_t half = order.size() / 2;
    Round round;
    for (std::size_t i = 0; i < half; ++i) round.push_back({order[i], order[half + i]});
    rounds.push_back(std::move(round));
  }
  return rounds;
}

}  // namespace rdmabench::sweep::detail
