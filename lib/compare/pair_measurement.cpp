// A pair binary's --json record as a Measurement. Its key: the test, the
// size, the side that wrote it, this side's host and port and the peer's
// address (without the TCP port, which changes every run), and every
// agreed parameter but the run's id and the whole list of sizes. Its
// context: what the record says of the path and the build, and the rate
// cap, which is no test parameter but explains a bandwidth at once.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "json_fields.hpp"
#include "rdmabench/compare/measurement.hpp"
#include "rdmabench/sweep/counter_limits.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::compare {

using nlohmann::json;
using detail::field_at;
using detail::number_at;
using detail::text_at;

namespace {

/// Parameters that differ between repeats of one test by design.
bool varies_between_repeats(const std::string& parameter) {
  return parameter == "run_id" || parameter == "sizes" || parameter == "repeat" || parameter == "repeats" ||
         parameter == "repeat_index";
}

/// "server 10.0.2.15:40200" -> "server 10.0.2.15"; "[fe80::1]:7" -> "[fe80::1]".
std::string peer_without_port(const std::string& peer) {
  const auto colon = peer.rfind(':');
  if (colon == std::string::npos || colon + 1 == peer.size()) return peer;
  if (peer.find_first_not_of("0123456789", colon + 1) != std::string::npos) return peer;
  const std::string address = peer.substr(0, colon);
  // A bare IPv6 address has colons of its own: its last group is no port.
  const auto space = address.rfind(' ');
  const std::string host = space == std::string::npos ? address : address.substr(space + 1);
  if (host.find(':') != std::string::npos && host.back() != ']') return peer;
  return address;
}

struct ContextItem {
  const char* name;
  std::initializer_list<const char*> path;
};

// What can explain a change before any statistic does.
const ContextItem kContextItems[] = {
    {"device", {"context", "device"}},
    {"port", {"context", "port"}},
    {"transport", {"context", "transport"}},
    {"link layer", {"context", "link_layer"}},
    {"MTU", {"context", "mtu_bytes"}},
    {"GID type", {"context", "gid", "type"}},
    {"firmware", {"context", "firmware"}},
    {"rdma-core", {"context", "rdma_core"}},
    {"kernel", {"context", "kernel"}},
    {"port rate", {"context", "achievable", "port_rate"}},
    {"achievable Gb/s", {"context", "achievable", "Gbps"}},
    {"memory", {"context", "memory", "local"}},
    {"peer's memory", {"context", "memory", "remote"}},
    {"memory registration", {"context", "memory", "registration"}},
    {"connection", {"context", "connection"}},
    {"max inline", {"context", "max_inline_bytes"}},
    {"pinned CPUs", {"context", "numa", "pinned_cpus"}},
    {"rdmabench version", {"context", "version"}},
    {"build type", {"context", "build_type"}},
};

struct FigureSource {
  const char* key;
  std::initializer_list<const char*> path;
};

const FigureSource kFigureSources[] = {
    {"bw_average_MBps", {"bandwidth", "average_MBps"}},
    {"bw_peak_MBps", {"bandwidth", "peak_MBps"}},
    {"bw_message_rate_Mpps", {"bandwidth", "message_rate_Mpps"}},
    {"bw_both_average_MBps", {"bandwidth_both", "average_MBps"}},
    {"bw_both_message_rate_Mpps", {"bandwidth_both", "message_rate_Mpps"}},
    {"bw_server_average_MBps", {"bandwidth_server", "average_MBps"}},
    {"lat_min_us", {"latency", "min_us"}},
    {"lat_median_us", {"latency", "median_us"}},
    {"lat_mean_us", {"latency", "mean_us"}},
    {"lat_p90_us", {"latency", "p90_us"}},
    {"lat_p99_us", {"latency", "p99_us"}},
    {"lat_p99_9_us", {"latency", "p99_9_us"}},
    {"lat_p99_99_us", {"latency", "p99_99_us"}},
    {"lat_max_us", {"latency", "max_us"}},
    {"cpu_client_s_per_GB", {"cpu", "client", "process", "cpu_s_per_GB"}},
    {"cpu_server_s_per_GB", {"cpu", "server", "process", "cpu_s_per_GB"}},
};

std::string required_text(const json& record, std::initializer_list<const char*> path) {
  const std::string text = text_at(record, path);
  require(!text.empty(), "field '" + detail::dotted(path) + "' is missing",
          "a pair record names its test, role and size (docs/json-output.md)");
  return text;
}

MatchKey key_of(const json& record, const ReadOptions& options, Measurement& m) {
  MatchKey key;
  key.test = required_text(record, {"test"});
  key.role = required_text(record, {"role"});
  const auto bytes = number_at(record, {"bytes"});
  require(bytes && *bytes >= 0, "field 'bytes' is missing", "a pair record has one per message size");
  key.bytes = static_cast<std::uint64_t>(*bytes);
  const std::string where = fmt::format("{} {} port {}, peer {}", text_at(record, {"host"}),
                                        text_at(record, {"context", "device"}), text_at(record, {"context", "port"}),
                                        peer_without_port(text_at(record, {"context", "peer"})));
  // The device is context, not key: a NIC swapped behind the same host and
  // peer is the change a user wants to see, with a warning that says so.
  const std::string where_key =
      fmt::format("{}, peer {}", text_at(record, {"host"}), peer_without_port(text_at(record, {"context", "peer"})));
  if (options.ignore_endpoints) m.context["endpoints"] = where;
  else key.endpoints = where_key;
  if (const json* parameters = field_at(record, {"context", "parameters"}); parameters && parameters->is_object())
    for (const auto& [name, value] : parameters->items())
      if (!varies_between_repeats(name)) key.parameters[name] = value.is_string() ? value.get<std::string>() : value.dump();
  return key;
}

void read_context(const json& record, Measurement& m) {
  for (const ContextItem& item : kContextItems)
    if (std::string value = text_at(record, item.path); !value.empty()) m.context[item.name] = value;
  // A bandwidth client's --rate, or a latency client's open-loop rate.
  if (m.key.role == "client") {
    if (field_at(record, {"bandwidth"}))
      m.context["rate cap"] = field_at(record, {"bandwidth", "rate"})
                                  ? fmt::format("{} {}", text_at(record, {"bandwidth", "rate", "target"}),
                                                text_at(record, {"bandwidth", "rate", "unit"}))
                                  : "none";
    if (field_at(record, {"latency"}))
      m.context["open-loop rate"] = field_at(record, {"open_loop"}) ? text_at(record, {"open_loop", "target"}) : "none";
  }
}

void read_figures(const json& record, Measurement& m) {
  for (const FigureSource& f : kFigureSources)
    if (auto value = number_at(record, f.path)) m.figures[f.key] = *value;
  // The watched error counters (rdma_sweep's list): a counter the side
  // read that did not move moved by 0.
  const auto read = number_at(record, {"counters", "read"});
  if (!read || *read <= 0) return;
  for (const sweep::CounterLimit& limit : sweep::default_counter_limits())
    m.figures["counter_" + limit.counter] = number_at(record, {"counters", "moved", limit.counter.c_str()}).value_or(0);
}

}  // namespace

std::optional<Measurement> measurement_of_pair_record(const json& record, const ReadOptions& options,
                                                      std::string& why) {
  require(record.is_object(), "a record is " + std::string(record.type_name()) + ", not a JSON object",
          "each line holds one record as --json writes it");
  const auto schema = number_at(record, {"schema_version"});
  require(schema && *schema == 2,
          schema ? fmt::format("schema_version {} is not the one this rdma_compare reads (2)", *schema)
                 : std::string("no schema_version: not a record of this rdmabench (or of one before 1.0)"),
          "compare records written by rdmabench 0.1 or later (docs/json-output.md)");
  if (field_at(record, {"soak", "period"})) {
    why = "soak period records (their soak's summary record is compared)";
    return std::nullopt;
  }
  Measurement m;
  m.key = key_of(record, options, m);
  m.run_id = text_at(record, {"run_id"});
  if (const auto repeat = number_at(record, {"repeat"})) m.repeat = static_cast<std::int64_t>(*repeat);
  read_context(record, m);
  read_figures(record, m);
  if (m.figures.empty()) {
    why = "records with no figure to compare";
    return std::nullopt;
  }
  return m;
}

}  // namespace rdmabench::compare
