#pragma once
// What rank 0 tells every rank before a round: which test, which pass, and
// the round's directed pairs. Rank 0 alone plans (the schedule, what
// --resume skips, the re-test pass), so the others never need to agree on
// anything but these orders. MPI-free.

#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "rdmabench/sweep/record.hpp"
#include "rdmabench/sweep/schedule.hpp"

namespace rdmabench::sweep_cli {

struct RoundOrder {
  std::uint32_t epoch = 0;  ///< position in the whole sweep, 0-based: tells one pair session from another
  std::string test;
  sweep::SweepPass pass = sweep::SweepPass::sweep;
  std::size_t round = 0;    ///< within its test and pass, 0-based
  std::size_t rounds = 0;   ///< of its test and pass
  std::vector<sweep::DirectedPair> pairs;
};

std::string encode_order(const RoundOrder& order);
/// Throws rdmabench::Error for text that is not an order for `ranks` ranks.
RoundOrder decode_order(const std::string& text, std::size_t ranks);

/// (test, client rank, server rank) of each measured sweep-pass record:
/// what --resume skips (a pair that failed is tried again).
using PairKey = std::tuple<std::string, std::size_t, std::size_t>;
std::set<PairKey> measured_pairs(std::span<const sweep::SweepRecord> records);

/// The sweep pass: every test's schedule in turn, without the pairs in
/// `skip`; rounds left empty are dropped. Epochs count from `first_epoch`.
std::vector<RoundOrder> plan_sweep(std::span<const std::string> tests,
                                   const sweep::Schedule& schedule, const std::set<PairKey>& skip,
                                   std::uint32_t first_epoch);

/// The re-test pass of one test: `pairs` packed into rounds of disjoint pairs.
std::vector<RoundOrder> plan_retest(const std::string& test, std::span<const sweep::DirectedPair> pairs,
                                    std::uint32_t first_epoch);

/// "rdmabench-lab has 4 ranks and 2 CPUs" for the first host whose ranks
/// outnumber its online CPUs, where the contexts say; nothing when none does.
std::optional<std::string> crowded_host(std::span<const sweep::EndpointContext> everyone);

/// `orders` with each round of a test that `alone` names split into rounds
/// of one pair each, numbered again within its test and pass; epochs count
/// from `first_epoch`. How latency pairs run when a host's ranks outnumber
/// its CPUs: pairs at once would then measure the scheduler, not the fabric.
std::vector<RoundOrder> one_pair_per_round(std::vector<RoundOrder> orders, const std::set<std::string>& alone,
                                           std::uint32_t first_epoch);

/// Where the server of pairs[index] listens for rdma_cm: each server of a
/// round takes the next port of its own, PORT + 2(rank + n x ranks) (+ 1 for
/// rdma_cm), n counting its earlier pairs in the round. Throws
/// rdmabench::Error when that passes 65535.
std::uint16_t server_port(const RoundOrder& order, std::size_t index, std::uint16_t base_port, std::size_t ranks);

}  // namespace rdmabench::sweep_cli
