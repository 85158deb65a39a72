#pragma once
/// @file
/// Sweep schedules as data: rounds of directed pairs. Every pair of a round
/// runs at the same time; rounds run one after another.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdmabench/sweep/endpoint.hpp"

namespace rdmabench::sweep {

using Round = std::vector<DirectedPair>;
using Schedule = std::vector<Round>;

/// The --pattern values.
enum class Pattern {
  pairwise,    ///< every pair of a rail, rounds of disjoint pairs, both directions
  ring,        ///< each endpoint to the next of its rail
  incast,      ///< every endpoint of a rail to the rail's root at once
  all_to_all,  ///< every ordered pair of a rail at once: the congestion test
  bisection,   ///< seeded random halves paired off, `repeat` times
};

/// Parses a --pattern value; throws rdmabench::Error naming the valid ones.
Pattern parse_pattern(std::string_view text);
std::string_view pattern_name(Pattern pattern);

struct ScheduleOptions {
  Pattern pattern = Pattern::pairwise;
  PairingOptions pairing;
  /// incast: the rank that receives. On each rail the root is the endpoint
  /// on this rank's host, so every rail's incast lands on the same host.
  int root_rank = 0;
  /// ring: add a second round with every link driven the other way.
  bool ring_both_directions = true;
  /// bisection: how many random splits, and the seed that makes them
  /// reproducible (every rank computes the same schedule from it).
  int repeat = 1;
  std::uint64_t seed = 1;
};

/// The schedule for `endpoints` (validated first). With several rails the
/// rails' rounds run side by side: round i holds round i of every rail.
/// Throws rdmabench::Error when no pair can be formed.
///
/// pairwise measures each direction in its own sweep: rounds 1..R drive
/// every pair one way, rounds R+1..2R the same pairs with the roles swapped.
/// So no endpoint is ever in two pairs of a round and each figure is one
/// direction alone (a pair driven both ways at once would share the NICs'
/// engines and the two figures would disturb each other).
Schedule build_schedule(std::span<const Endpoint> endpoints, const ScheduleOptions& options);

/// Packs directed pairs into rounds in which no endpoint appears twice,
/// first fit in the given order (used for re-test plans).
Schedule pack_into_rounds(std::span<const DirectedPair> pairs);

}  // namespace rdmabench::sweep
