#pragma once
/// @file
/// The counters a sweep watches at each end of a pair, and their limits: a
/// pair within its bandwidth and latency limits whose retransmission,
/// sequence-error, CNP or discard counters moved past one of these is a
/// "silent degrader" (docs/sweep.md). Most limits are rates, per million
/// packets through that end's port, since soft RDMA (rxe) repeats some
/// packets on an unloaded, healthy link; a few (link_downed) are counts.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdmabench/sweep/record.hpp"

namespace rdmabench::sweep {

struct CounterLimit {
  std::string counter;               ///< the counter file's name: "rcvd_seq_err"
  double limit = 0;                  ///< the most a pair's end may show; more is past it
  bool per_million_packets = false;  ///< a rate (see packets_through()) rather than a count
};

/// The limits a sweep applies unless --max-counter says otherwise, in name
/// order; docs/sweep.md says why each one.
std::vector<CounterLimit> default_counter_limits();

/// One --max-counter item: "NAME=N" (a count per end), "NAME=Nppm" (per
/// million packets through that end) or "NAME=off" (not watched). Returns
/// the limit, or nothing for "off"; throws rdmabench::Error naming what is
/// wrong and what would be right.
struct CounterLimitSetting {
  std::string counter;
  std::optional<CounterLimit> limit;  ///< empty: "off"
};
CounterLimitSetting parse_counter_limit(std::string_view text);

/// `limits` with each setting applied in order: replaced, added, or (off) removed.
std::vector<CounterLimit> with_settings(std::vector<CounterLimit> limits,
                                        std::span<const CounterLimitSetting> settings);

/// "rcvd_seq_err=100ppm", "link_downed=0": as --max-counter takes it.
std::string limit_text(const CounterLimit& limit);

/// The packets that went through one end's port in the pair's run: sent
/// plus received, from rxe's sent_pkts/rcvd_pkts or else the standard
/// port_xmit_packets/port_rcv_packets; nothing when neither moved.
std::optional<std::uint64_t> packets_through(const CounterDeltas& deltas);

/// A watched counter that moved past its limit at one end of a pair.
struct CounterExcess {
  std::string counter;
  bool at_server = false;  ///< which end: the server's or the client's
  std::uint64_t delta = 0;
  std::optional<double> per_million;  ///< delta per million packets, when the end counted its packets
  CounterLimit limit;
  bool host_wide = false;  ///< the end's counters are the whole host's (siw: host TCP)
};

/// The watched counters past their limits at either end of `record`, client
/// end first, each in name order. A rate limit at an end that counted no
/// packets is held against the count itself (docs/sweep.md).
std::vector<CounterExcess> counter_excesses(const SweepRecord& record, std::span<const CounterLimit> limits);

/// "out_of_seq_request +512 at the server end (rank 1 host-b rxe0): 1650 per
/// million packets, limit 100 per million", one per excess, joined by "; ".
std::string excesses_text(const SweepRecord& record, std::span<const CounterExcess> excesses);

}  // namespace rdmabench::sweep
