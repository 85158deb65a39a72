// Which endpoints may be paired: rails, cross-rail mixing, same-host pairs.

#include <map>
#include <set>

#include "rdmabench/sweep/endpoint.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep {

void validate_endpoints(std::span<const Endpoint> endpoints) {
  std::set<int> ranks;
  for (const Endpoint& e : endpoints) {
    require(ranks.insert(e.rank).second,
            "sweep endpoints: rank " + std::to_string(e.rank) + " appears twice",
            "each rank must describe exactly one (host, NIC) endpoint");
    require(e.rail >= 0, "sweep endpoints: " + describe(e) + " has a negative rail",
            "rails are numbered 0, 1, ... (NIC k of every host is on rail k)");
    require(!e.host.empty() && !e.device.empty(),
            "sweep endpoints: rank " + std::to_string(e.rank) + " has no host or device name",
            "every endpoint needs the host it runs on and its RDMA device, e.g. mlx5_0");
  }
}

std::vector<std::vector<EndpointIndex>> pairing_groups(std::span<const Endpoint> endpoints,
                                                       const PairingOptions& options) {
  if (options.cross_rail) {
    std::vector<EndpointIndex> everybody(endpoints.size());
    for (EndpointIndex i = 0; i < endpoints.size(); ++i) everybody[i] = i;
    return {everybody};
  }
  std::map<int, std::vector<EndpointIndex>> by_rail;  // ordered: rail 0 first
  for (EndpointIndex i = 0; i < endpoints.size(); ++i) by_rail[endpoints[i].rail].push_back(i);
  std::vector<std::vector<EndpointIndex>> groups;
  for (auto& [rail, members] : by_rail) groups.push_back(std::move(members));
  return groups;
}

bool may_pair(const Endpoint& a, const Endpoint& b, const PairingOptions& options) {
  if (!options.cross_rail && a.rail != b.rail) return false;
  return !(options.skip_same_host && a.host == b.host);
}

std::string describe(const Endpoint& endpoint) {
  return "rank " + std::to_string(endpoint.rank) + " (" + endpoint.host + " " + endpoint.device +
         ", rail " + std::to_string(endpoint.rail) + ")";
}

}  // namespace rdmabench::sweep
