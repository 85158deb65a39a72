#pragma once
// A port's counters around a run, read at its boundaries only (never in a
// timed loop): the standard port counters (ports/N/counters: port_xmit_data,
// symbol_error, link_downed, ...), the provider's hw_counters by the names
// the device gives them (mlx5's out_of_sequence, np_cnp_sent; rxe's
// rcvd_seq_err, retry_exceeded_err), and, for a device with neither (siw),
// the host's TCP retransmissions instead, labelled host-wide.
// docs/counters.md says what each common one means.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

struct CounterSnapshot {
  /// Where the values come from, for the report: "rxe0 port 1 counters and
  /// hw_counters", "host TCP (host-wide: every connection of this host)";
  /// empty when nothing could be read.
  std::string source;
  bool host_wide = false;
  std::map<std::string, std::uint64_t> values;  ///< by the file's name
};

/// Reads `device` port `port`'s counters under `sysfs` (default /sys), or
/// the host's TCP counters under `proc` where the device has none. Files
/// that cannot be read or hold no number are left out; never throws.
CounterSnapshot read_port_counters(const std::string& device, int port,
                                   const std::filesystem::path& sysfs = "/sys",
                                   const std::filesystem::path& proc = "/proc");

struct CounterDeltas {
  std::string source;
  bool host_wide = false;
  std::size_t counters_read = 0;               ///< read both times
  std::map<std::string, std::uint64_t> moved;  ///< the non-zero deltas
  std::vector<std::string> went_backwards;     ///< reset or wrapped between the reads: no delta
};

/// Deltas per interval of the counters that moved over a span
/// (CounterSampler, verbs/counter_sampler.hpp).
struct CounterSeries {
  double interval_ms = 0;
  std::vector<double> ends_ms;  ///< each interval's end, from the first read
  std::map<std::string, std::vector<std::uint64_t>> moved;  ///< by name, one delta per interval
};

/// Receiver-not-ready NAKs over a span, where the device counts them: those
/// it sent because a send found no receive posted (rxe: send_rnr_err), and
/// those it received, each making one of its sends wait and retry (rxe:
/// rcvd_rnr_err; mlx5: rnr_nak_retry_err). A device counts for all its
/// QPs, both directions. iWARP has no RNR (a send that finds no receive
/// ends the connection), so siw counts neither.
struct ReceiverNotReady {
  std::optional<std::uint64_t> naks_sent;      ///< empty: the device does not count them
  std::optional<std::uint64_t> naks_received;  ///< empty: the device does not count them
  std::string source;                          ///< as CounterSnapshot::source
  bool operator==(const ReceiverNotReady&) const = default;
};

/// The RNR NAKs between two snapshots; empty when the device counts neither
/// (or a counter went backwards, which gives no delta).
std::optional<ReceiverNotReady> receiver_not_ready(const CounterSnapshot& before,
                                                   const CounterSnapshot& after);

/// after - before for each counter read both times.
CounterDeltas counter_deltas(const CounterSnapshot& before, const CounterSnapshot& after);

/// "rcvd_seq_err +3, out_of_seq_request +3" (the moved ones, in name order),
/// or "none moved".
std::string describe_moved(const CounterDeltas& deltas);

}  // namespace rdmabench
