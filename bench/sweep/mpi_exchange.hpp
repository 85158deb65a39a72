#pragma once
// The only MPI of rdma_sweep: who takes part, and the results' way to rank 0.
// None of it runs inside a timed loop.

#include <string>
#include <vector>

#include "rdmabench/sweep/endpoint.hpp"

namespace rdmabench::sweep_cli {

/// One rank's self-description, as every rank learns it.
struct RankInfo {
  sweep::Endpoint endpoint;
  std::string address;  ///< where its pair server listens; empty: unknown
  std::string address_error;  ///< why it is unknown
};

/// MPI_Allgather of every rank's info, in rank order (so index == rank).
std::vector<RankInfo> allgather_ranks(const RankInfo& mine);

/// Every rank's text to rank 0 (MPI_Gatherv), in rank order; other ranks get
/// an empty list.
std::vector<std::string> gather_to_root(const std::string& mine);

/// Whether every rank says ok (MPI_Allreduce), so all stop together.
bool all_ok(bool mine);

}  // namespace rdmabench::sweep_cli
