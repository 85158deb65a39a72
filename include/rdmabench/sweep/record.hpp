#pragma once
/// @file
/// One line of a sweep's results.jsonl: a directed pair's test, its figures
/// (or why none came) and the context of both ends. The binary writes these
/// as pairs finish; the report is made from them alone, so a recorded
/// results.jsonl can be reported on again (and `--resume` can skip what it
/// already holds).

#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdmabench/sweep/endpoint.hpp"
#include "rdmabench/verbs/port_counters.hpp"

namespace rdmabench::sweep {

/// What is known of one end of a pair: where it is, what it runs on.
struct EndpointContext {
  Endpoint endpoint;                     ///< rank, host, device, rail
  int port = 1;                          ///< the device's port
  std::string address;                   ///< IP address of the port's netdev (RoCE, iWARP, IPoIB)
  std::string gid;                       ///< the GID the pair used, textual
  std::optional<double> port_rate_Gbps; ///< active width x speed
  std::string link_layer;                ///< "Ethernet", "InfiniBand"
  std::string firmware;                  ///< ibv_query_device fw_ver
  std::optional<int> numa_node;          ///< the NIC's NUMA node
  std::string memory;                    ///< --mem as chosen: "host", "cuda:0", ...
  std::string gpu_relationship;              ///< topology of GPU to NIC ("PIX", "SYS", ...); empty for host
  std::string rdma_core;                 ///< rdma-core (libibverbs) version
  std::string kernel;                    ///< uname -r
  std::optional<int> host_cpus;          ///< the host's online CPUs (ranks beyond them share CPUs)
};

/// The figures a pair's run gives; a test fills only its own. Each is named
/// as results.jsonl writes it: the pair CSV's name (figure_names.hpp).
struct PairFigures {
  std::optional<double> bw_average_Gbps;    ///< 10^9 bit/s
  std::optional<double> bw_peak_Gbps;
  std::optional<double> bw_message_rate_Mpps;   ///< 10^6 messages/s
  std::optional<double> lat_mean_us;
  std::optional<double> lat_median_us;
  std::optional<double> lat_p99_us;
  std::optional<double> lat_p99_9_us;
  std::optional<double> lat_max_us;
  /// How many latency samples the percentiles rest on: a p99 of 300 is
  /// the third-worst sample, too thin to judge a pair by (the report then
  /// judges the median). Not a figure: no matrix of its own.
  std::optional<std::uint64_t> lat_samples;
};

/// A figure's JSON key ("bw_average_Gbps") and where PairFigures keeps it.
struct FigureField {
  std::string_view key;
  std::optional<double> PairFigures::*member;
};
/// Every figure, in the order PairFigures declares them (and reports list them).
std::span<const FigureField> figure_fields();

/// Each end's port counters over the pair's run (read before its start
/// barrier and after its end barrier, as the pair JSON's `counters`). The
/// client's come with its figures; the server's travel to rank 0 in the
/// server rank's report of the round and join the record there. Empty
/// where that end read none (or, for the server's, did not report them).
struct PairCounters {
  std::optional<CounterDeltas> client;
  std::optional<CounterDeltas> server;
};

/// Which pass of the sweep measured a record: the schedule itself, or the
/// re-test of failing pairs against known-good partners.
enum class SweepPass { sweep, retest };
/// "sweep" or "retest", as results.jsonl writes it.
std::string_view pass_name(SweepPass pass);

struct SweepRecord {
  std::string test;      ///< "write_bw", "write_lat", "send_lat", "read_lat"
  std::string pattern;   ///< pattern_name() of the schedule it came from
  SweepPass pass = SweepPass::sweep;
  std::size_t round = 0;  ///< 0-based, within its pass
  EndpointContext client;
  EndpointContext server;
  std::uint64_t size_bytes = 0;
  PairFigures figures;
  PairCounters counters;
  std::string error;      ///< why no figure came; empty when measured
  double seconds = 0;     ///< the pair's wall time, connection included
  std::string started_utc;  ///< ISO 8601, when the pair started
  /// The pair run's id, as both ends' pair JSON would carry it (14 hex
  /// digits); empty when the pair never connected.
  std::string run_id;

  bool measured() const { return error.empty(); }
};

/// One end's context as the JSON object records hold it (how ranks tell
/// each other theirs), and back; throws rdmabench::Error naming the field.
std::string to_json_text(const EndpointContext& context);
EndpointContext context_from_json_text(const std::string& text);

/// One end's counter deltas as the JSON object records hold them (how the
/// server's rank tells rank 0 its end), and back; throws rdmabench::Error
/// naming the field.
std::string to_json_text(const CounterDeltas& deltas);
CounterDeltas counter_deltas_from_json_text(const std::string& text);

/// The layout of a results.jsonl line: 2 since the figures took the names
/// of figure_names.hpp (schema 1 had no field; --resume refuses it).
inline constexpr int kSweepSchemaVersion = 2;

/// One JSON object on one line, no trailing newline; `schema_version` and
/// `host` (the client end's, which measured) lead it.
std::string to_json_line(const SweepRecord& record);
/// Throws rdmabench::Error naming the field that is missing or wrong.
SweepRecord from_json_line(const std::string& line);
/// Every record of a results.jsonl; a line that does not parse throws an
/// Error naming its line number. With `torn_bytes`, a last line that does
/// not parse (cut short by a crash or a full disk) is dropped instead, and
/// its length stored there (0 when the file ended cleanly).
std::vector<SweepRecord> read_records(std::istream& in, std::size_t* torn_bytes = nullptr);

}  // namespace rdmabench::sweep
