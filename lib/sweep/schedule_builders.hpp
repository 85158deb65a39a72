#pragma once
// The per-group schedule builders behind build_schedule(). Each one sees one
// pairing group (a rail, or everybody with cross-rail) and knows nothing of
// hosts; build_schedule() filters pairs that may not be formed afterwards.

#include <cstdint>
#include <span>

#include "rdmabench/sweep/schedule.hpp"

namespace rdmabench::sweep::detail {

/// Circle method: N-1 rounds for even N, N for odd N, then the same rounds
/// with client and server swapped.
Schedule pairwise_rounds(std::span<const EndpointIndex> group);

/// Member i to member i+1 (wrapping); a second round the other way when
/// `both_directions` and the ring has more than two members.
Schedule ring_rounds(std::span<const EndpointIndex> group, bool both_directions);

/// Every other member to `root` in one round.
Schedule incast_rounds(std::span<const EndpointIndex> group, EndpointIndex root);

/// Every ordered pair in one round.
Schedule all_to_all_rounds(std::span<const EndpointIndex> group);

/// `repeat` rounds, each a random split of the group into halves with the
/// i-th of the first half sending to the i-th of the second. `state` is the
/// generator state, shared by the rails so each rail gets its own split.
Schedule bisection_rounds(std::span<const EndpointIndex> group, int repeat, std::uint64_t& state);

}  // namespace rdmabench::sweep::detail
