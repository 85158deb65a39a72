#pragma once
/// @file
/// Who takes part in a sweep: endpoints (one per rank, each one NIC of a host)
/// and which of them may be paired (rails, same-host pairs).

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace rdmabench::sweep {

/// One (host, NIC) of the fabric. The sweep refers to endpoints by their
/// position in the endpoint list (EndpointIndex), not by rank, so that the
/// pure code never depends on how the launcher numbered the ranks.
struct Endpoint {
  int rank = 0;
  std::string host;
  std::string device;
  int rail = 0;  ///< NIC k of every host is on rail k; pairs stay within a rail
};

using EndpointIndex = std::size_t;

/// One measurement: `client` sends (or initiates) towards `server`.
struct DirectedPair {
  EndpointIndex client = 0;
  EndpointIndex server = 0;
  bool operator==(const DirectedPair&) const = default;
};

/// Which endpoints may be paired.
struct PairingOptions {
  /// Mix all rails into one group. Off by default: on a rail-optimised
  /// fabric NIC k of one host only reaches NIC k of another at full speed.
  bool cross_rail = false;
  /// Leave out pairs of two NICs of one host (they would loop back through
  /// the host's own switch port and say little about the fabric).
  bool skip_same_host = false;
};

/// Throws rdmabench::Error unless ranks are unique, rails are not negative and
/// hosts and devices are named: bad input from the bootstrap would otherwise
/// surface as a puzzling schedule.
void validate_endpoints(std::span<const Endpoint> endpoints);

/// The groups in which pairs are formed: one per rail in ascending rail order
/// (each in endpoint-list order), or one group of everybody with cross_rail.
std::vector<std::vector<EndpointIndex>> pairing_groups(std::span<const Endpoint> endpoints,
                                                       const PairingOptions& options);

/// Whether two distinct endpoints may form a pair under `options`.
bool may_pair(const Endpoint& a, const Endpoint& b, const PairingOptions& options);

/// "rank 3 (host-c mlx5_1, rail 1)": how messages and verdicts name an endpoint.
std::string describe(const Endpoint& endpoint);

}  // namespace rdmabench::sweep
