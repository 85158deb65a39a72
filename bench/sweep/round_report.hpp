#pragma once
// A rank's report of its part of a round, to rank 0: the records of the
// pairs it was the client of, and its server end's counters of the pairs it
// served, which rank 0 joins to their records. The server's counters come
// this way, over the sweep's coordination, rather than over the pair's
// control path: the pair's wire protocol stays the pair binaries' own.
// MPI-free, so the unit tests reach it.

#include <cstdint>
#include <string>
#include <vector>

#include "rdmabench/sweep/record.hpp"

namespace rdmabench::sweep_cli {

/// The server end's counters of one pair, on their way to its record.
struct ServerCounters {
  int client_rank = 0;
  int server_rank = 0;
  CounterDeltas counters;
};

/// What a rank's part of a round gives: the records of the pairs it was
/// the client of (failed ones with their cause), and the counters of those
/// it served, which rank 0 joins to their records (join_server_counters).
struct MyPairs {
  std::vector<sweep::SweepRecord> records;
  std::vector<ServerCounters> served;
};

/// The "done" letter of a round, and back (rank 0 checks that its records
/// and counters are the sending rank's own; throws rdmabench::Error).
std::string encode_done(std::uint32_t epoch, const MyPairs& mine);
MyPairs decode_done(const std::string& text, int from, std::uint32_t& epoch);

/// Puts each served counters into the record of its pair, where there is one.
void join_server_counters(std::vector<sweep::SweepRecord>& records, const std::vector<ServerCounters>& served);

}  // namespace rdmabench::sweep_cli
