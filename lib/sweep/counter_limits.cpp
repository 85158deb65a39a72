// The watched counters' limits: the defaults, --max-counter's NAME=N, and
// each end of a pair held against them.

#include "rdmabench/sweep/counter_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "rdmabench/compat/read_double.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep {

namespace {

constexpr std::string_view kPerMillionSuffix = "ppm";

/// Why each default is what it is: docs/sweep.md, "Silent degraders".
/// Rates where a healthy link moves the counter a little (rxe repeats
/// packets unloaded: completer_retry_err ~170 per million in the lab),
/// counts where any movement at all is a fault.
CounterLimit rate_limit(const char* name, double per_million) { return {name, per_million, true}; }
CounterLimit count_limit(const char* name, double most) { return {name, most, false}; }

bool is_counter_file_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// The end that an excess is at, for a person: "the server end (rank 1 host-b rxe0)".
std::string counter_end_text(const SweepRecord& r, bool at_server) {
  const EndpointContext& end = at_server ? r.server : r.client;
  return fmt::format("the {} end (rank {} {} {})", at_server ? "server" : "client", end.endpoint.rank,
                     end.endpoint.host, end.endpoint.device);
}

std::string rate_text(double value) { return fmt::format("{:.4g}", value); }

void add_end_excesses(const CounterDeltas& deltas, bool at_server, std::span<const CounterLimit> limits,
                  std::vector<CounterExcess>& into) {
  const auto packets = packets_through(deltas);
  for (const auto& moved : deltas.moved) {
    const std::string& name = moved.first;
    const std::uint64_t delta = moved.second;
    const auto limit = std::find_if(limits.begin(), limits.end(), [&](const CounterLimit& l) { return l.counter == name; });
    if (limit == limits.end()) continue;
    CounterExcess e{name, at_server, delta, std::nullopt, *limit, deltas.host_wide};
    if (limit->per_million_packets && packets)
      e.per_million = static_cast<double>(delta) * 1e6 / static_cast<double>(*packets);
    const double judged = e.per_million.value_or(static_cast<double>(delta));
    if (judged > limit->limit) into.push_back(std::move(e));
  }
}

}  // namespace

std::vector<CounterLimit> default_counter_limits() {
  std::vector<CounterLimit> limits{
      // rxe (soft RoCE): sequence errors and retransmission.
      rate_limit("rcvd_seq_err", 100), rate_limit("out_of_seq_request", 100), rate_limit("completer_retry_err", 10000),
      count_limit("retry_exceeded_err", 0),
      // mlx5: sequence errors, retransmission timeouts, congestion (CNPs), receive buffer drops.
      rate_limit("out_of_sequence", 100), rate_limit("packet_seq_err", 100), rate_limit("local_ack_timeout_err", 10),
      rate_limit("np_cnp_sent", 1000), rate_limit("rp_cnp_handled", 1000), rate_limit("out_of_buffer", 100),
      // The standard port counters: discards, receive errors, a flapping link.
      rate_limit("port_xmit_discards", 100), rate_limit("port_rcv_errors", 10), count_limit("symbol_error", 10),
      count_limit("link_downed", 0),
  };
  std::sort(limits.begin(), limits.end(), [](const CounterLimit& a, const CounterLimit& b) { return a.counter < b.counter; });
  return limits;
}

CounterLimitSetting parse_counter_limit(std::string_view text) {
  const std::string hint = "give NAME=N (at most N at each end), NAME=Nppm (at most N per million packets through "
                           "each end) or NAME=off, e.g. rcvd_seq_err=100ppm or link_downed=0";
  const auto equals = text.find('=');
  require(equals != std::string_view::npos, fmt::format("'{}' has no '='", text), hint);
  const std::string_view name = text.substr(0, equals);
  std::string_view value = text.substr(equals + 1);
  require(is_counter_file_name(name), fmt::format("'{}' is no counter name (letters, digits and '_', as sysfs names them)", name),
          hint);
  if (value == "off") return {std::string(name), std::nullopt};
  CounterLimit limit{std::string(name), 0, false};
  if (value.ends_with(kPerMillionSuffix)) {
    limit.per_million_packets = true;
    value.remove_suffix(kPerMillionSuffix.size());
  }
  const char* end = value.data() + value.size();
  const auto [stop, error] = read_double(value.data(), end, limit.limit);
  require(!value.empty() && error == std::errc() && stop == end && std::isfinite(limit.limit) && limit.limit >= 0,
          fmt::format("'{}' for {} is not a limit of 0 or more", text.substr(equals + 1), name), hint);
  return {std::string(name), limit};
}

std::vector<CounterLimit> with_settings(std::vector<CounterLimit> limits, std::span<const CounterLimitSetting> settings) {
  for (const CounterLimitSetting& s : settings) {
    std::erase_if(limits, [&](const CounterLimit& l) { return l.counter == s.counter; });
    if (s.limit) limits.push_back(*s.limit);
  }
  std::sort(limits.begin(), limits.end(), [](const CounterLimit& a, const CounterLimit& b) { return a.counter < b.counter; });
  return limits;
}

std::string limit_text(const CounterLimit& limit) {
  return fmt::format("{}={:g}{}", limit.counter, limit.limit, limit.per_million_packets ? kPerMillionSuffix : "");
}

std::optional<std::uint64_t> packets_through(const CounterDeltas& deltas) {
  for (const auto& [sent, received] : {std::pair{"sent_pkts", "rcvd_pkts"}, std::pair{"port_xmit_packets", "port_rcv_packets"}}) {
    std::uint64_t packets = 0;
    for (const char* name : {sent, received})
      if (const auto it = deltas.moved.find(name); it != deltas.moved.end()) packets += it->second;
    if (packets > 0) return packets;
  }
  return std::nullopt;
}

std::vector<CounterExcess> counter_excesses(const SweepRecord& record, std::span<const CounterLimit> limits) {
  std::vector<CounterExcess> excesses;
  if (record.counters.client) add_end_excesses(*record.counters.client, false, limits, excesses);
  if (record.counters.server) add_end_excesses(*record.counters.server, true, limits, excesses);
  return excesses;
}

std::string excesses_text(const SweepRecord& record, std::span<const CounterExcess> excesses) {
  std::string text;
  for (const CounterExcess& e : excesses) {
    if (!text.empty()) text += "; ";
    text += fmt::format("{} +{} at {}{}", e.counter, e.delta, counter_end_text(record, e.at_server),
                        e.host_wide ? " (host-wide)" : "");
    if (e.per_million)
      text += fmt::format(": {} per million packets, limit {:g} per million", rate_text(*e.per_million), e.limit.limit);
    else
      text += fmt::format(", limit {:g}{}", e.limit.limit,
                          e.limit.per_million_packets ? " (a rate per million packets, held against the count: "
                                                        "that end counted no packets)"
                                                      : "");
  }
  return text;
}

}  // namespace rdmabench::sweep
