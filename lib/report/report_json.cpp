// JSON Lines: one object per message size, written by nlohmann::json.
#include <algorithm>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <ostream>

#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/report/figure_names.hpp"
#include "rdmabench/report/report.hpp"

namespace rdmabench {

namespace {

/// Every test parameter by its key; enums by the names the options use.
nlohmann::json parameters_json(const TestSpec& spec) {
  nlohmann::json j = nlohmann::json::object();
  for_each_test_parameter([&](const auto& row) {
    const auto& value = spec.*row.member;
    using T = std::decay_t<decltype(value)>;
    if constexpr (TestEnum<T>)
      j[row.key] = EnumNames<T>::names.at(static_cast<std::size_t>(value) - 1);
    else
      j[row.key] = value;
  });
  return j;
}

}  // namespace

nlohmann::json to_json(const RunContext& c) {
  return {
      {"test", c.test},
      {"role", c.role},
      {"version", c.version},
      {"build_type", c.build_type},
      {"host", c.host},
      {"device", c.device},
      {"port", c.port},
      {"transport", c.transport},
      {"link_layer", c.link_layer},
      {"gid",
       {{"index", c.gid_index}, {"value", c.gid}, {"type", c.gid_type}, {"reason", c.gid_reason}}},
      {"mtu_bytes", c.mtu_bytes},
      {"connection", c.connection},
      {"connection_type", c.connection_type},
      {"peer", c.peer},
      {"memory",
       {{"local", c.local_memory},
        {"local_device", c.local_memory_device},
        {"registration", c.memory_registration},
        {"relaxed_ordering",
         {{"local_buffer", c.relaxed_local},
          {"exposed_buffer", c.relaxed_exposed},
          {"reason", c.relaxed_ordering}}},
        {"remote", c.remote_memory}}},
      {"clock", c.clock},
      {"tx_depth", c.tx_depth},
      {"max_inline_bytes", c.max_inline},
      {"max_inline_reason", c.inline_reason},
      {"queue_pairs", c.queue_pairs},
      {"srq", c.srq_depth ? nlohmann::json{{"depth", c.srq_depth},
                                           {"queue_pairs", c.queue_pairs},
                                           {"reason", c.srq_reason}}
                          : nlohmann::json()},
      {"duration_s", c.duration_s},
      {"bidirectional", c.bidirectional},
      {"numa",
       {{"device_node",
         c.device_numa_node ? nlohmann::json(*c.device_numa_node) : nlohmann::json()},
        {"pinned_cpus", c.pinned_cpus},
        {"placement", c.cpu_placement}}},
      {"gpu_relationship",
       c.gpu_relationship.empty() ? nlohmann::json() : nlohmann::json(c.gpu_relationship)},
      {"passive_wait", c.passive_wait.empty() ? nlohmann::json() : nlohmann::json(c.passive_wait)},
      {"multicast", c.multicast_group.empty() ? nlohmann::json()
                                              : nlohmann::json{{"group", c.multicast_group},
                                                               {"receivers", c.multicast_receivers}}},
      {"achievable", c.achievable.device_found ? to_json(c.achievable) : nlohmann::json()},
      {"parameters", parameters_json(c.parameters)},
  };
}

nlohmann::json to_json(const BandwidthFigures& b) {
  namespace names = figure_names;
  nlohmann::json j = {{names::kBandwidthSeconds, b.seconds},
                      {"messages", b.messages},
                      {names::kPeakMBps, b.peak_mb_per_s},
                      {names::kPeakGbps, names::gbps_from_mbps(b.peak_mb_per_s)},
                      {names::kAverageMBps, b.average_mb_per_s},
                      {names::kAverageGbps, names::gbps_from_mbps(b.average_mb_per_s)},
                      {names::kMessageRateMpps, b.message_rate_mpps},
                      {"units", {{"MBps", "10^6 bytes/s"}, {"Gbps", "10^9 bits/s"}, {"Mpps", "10^6 messages/s"}}}};
  if (!b.per_qp_mb_per_s.empty()) j["per_qp_average_MBps"] = b.per_qp_mb_per_s;
  return j;
}

namespace {

nlohmann::json to_json(const Delivery& d) {
  return {{"sent", d.sent}, {"received", d.received}, {"lost", d.lost()}, {"loss_percent", d.loss_percent()}};
}

/// Each figure by its name in figure_names.hpp (`p99_9_us`), and the count.
nlohmann::json to_json(const LatencySummary& l) {
  nlohmann::json j = {{figure_names::kLatencySamples, l.count}};
  for (const auto& figure : figure_names::kLatencyFigures) j[figure.name] = l.*figure.member;
  return j;
}

const char* unit_name(RateUnit unit) {
  switch (unit) {
    case RateUnit::bits_per_second: return "bits/s";
    case RateUnit::bytes_per_second: return "bytes/s";
    case RateUnit::messages_per_second: return "messages/s";
  }
  return "";
}

/// Bandwidth over time: the spread and the series it comes from.
nlohmann::json to_json(const BandwidthOverTime& t) {
  return {{"interval_ms", t.interval_ms},
          {"intervals", t.mb_per_s.size()},
          {"min_MBps", t.min_mb_per_s},
          {"p1_MBps", t.p1_mb_per_s},
          {"p50_MBps", t.p50_mb_per_s},
          {"cv", t.cv},
          {"tail_ms", t.tail_ms},
          {"cut_short", t.cut_short},
          {"series_MBps", t.mb_per_s},
          {"series_ms", t.lengths_ms}};
}

/// --rate on a bandwidth test: target and achieved in the unit it was given
/// in (payload bits, bytes or messages per second, unscaled).
nlohmann::json to_json(const BandwidthRate& b) {
  return {{"target", b.rate.target.value},
          {"achieved", b.rate.achieved.value},
          {"unit", unit_name(b.rate.target.unit)},
          {"ratio", b.rate.ratio},
          {"burst", b.burst}};
}

/// "latency" holds the response time; this, what is beside it.
nlohmann::json to_json(const OpenLoopFigures& o) {
  nlohmann::json j = {{"target", o.target},
                      {"target_msg_per_s", o.target_per_s},
                      {"achieved_msg_per_s", o.achieved_per_s},
                      {"achieved_to_target", o.ratio()},
                      {"burst", o.burst},
                      {"service", to_json(o.service)},
                      {"late", {{"messages", o.late}, {"threshold_us", o.late_threshold_us}}},
                      {"not_sent", o.not_sent}};
  if (o.lateness) j["late"]["lateness"] = to_json(*o.lateness);
  return j;
}

/// --load-qps: the load beside the latency, and its own bandwidth.
nlohmann::json to_json(const LoadFigures& l) {
  return {{"queue_pairs", l.queue_pairs}, {"op", l.op},
          {"bytes", l.bytes},             {"mean_Gbps", l.mean_gbps},
          {"stdev_Gbps", l.stdev_gbps},   {"intervals", l.intervals}};
}

}  // namespace

std::string run_id_text(std::uint64_t run_id) { return run_id == 0 ? "" : fmt::format("{:014x}", run_id); }

std::string utc_now_text() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))); }

nlohmann::json to_json(const SizeResult& r, const RunContext& c) {
  nlohmann::json j = {{"schema_version", kJsonSchemaVersion},
                      {"run_id", run_id_text(c.run_id)},
                      {"started_utc", c.started_utc},
                      {"host", c.host},
                      {"test", c.test}, {"role", c.role}, {"bytes", r.bytes},
                      {"iterations", r.iterations}, {"warmup_iterations", r.warmup}};
  if (r.latency) {
    const auto& l = *r.latency;
    j["latency"] = to_json(l);
    j["latency"]["kind"] = c.latency_kind;
  }
  if (r.histogram_relative_error) {
    j["latency"]["percentiles_from"] = "histogram";
    j["latency"]["percentile_relative_error"] = *r.histogram_relative_error;
  }
  if (r.open_loop) j["open_loop"] = to_json(*r.open_loop);
  if (r.load) j["load"] = to_json(*r.load);
  // The share of the path's ceiling, beside each average; both directions
  // together are measured against both directions' ceilings.
  const auto& ceiling = c.achievable.ceiling;
  auto with_share = [&](const BandwidthFigures& b, int directions) {
    nlohmann::json figures = to_json(b);
    if (ceiling)
      figures["percent_of_achievable"] =
          percent_of(*ceiling, figure_names::gbps_from_mbps(b.average_mb_per_s) / directions);
    return figures;
  };
  if (r.bandwidth) j["bandwidth"] = with_share(*r.bandwidth, 1);
  if (r.bandwidth && r.bandwidth_rate) j["bandwidth"]["rate"] = to_json(*r.bandwidth_rate);
  if (r.bandwidth && r.over_time) j["bandwidth"]["over_time"] = to_json(*r.over_time);
  if (r.server_bandwidth) {
    // -b: "bandwidth" is what this side (the client) sent.
    j["bandwidth_server"] = with_share(*r.server_bandwidth, 1);
    if (r.bandwidth) j["bandwidth_both"] = with_share(add_directions(*r.bandwidth, *r.server_bandwidth), 2);
  }
  if (r.cpu_client || r.cpu_server) {
    j["cpu"] = {{"region", "warmup and timed iterations of this size"}};
    if (r.cpu_client) j["cpu"]["client"] = to_json(*r.cpu_client);
    if (r.cpu_server) j["cpu"]["server"] = to_json(*r.cpu_server);
  }
  if (r.delivery) {
    j["delivery"] = to_json(*r.delivery);
    // -g: the figures above are every receiver's copies together.
    for (const ReceiverDelivery& each : r.delivery_per_receiver) {
      nlohmann::json receiver = to_json(each.delivery);
      receiver["qp_number"] = each.qp_number;
      j["delivery"]["per_receiver"].push_back(receiver);
    }
  }
  if (r.validated) j["validated"] = true;
  if (const auto& k = r.counters)
    j["counters"] = {
        {"region", "this size, from before its start barrier to after its end barrier"},
        {"source", k->source},
        {"host_wide", k->host_wide},
        {"read", k->counters_read},
        {"moved", k->moved},
        {"went_backwards", k->went_backwards}};
  if (const auto& n = r.receiver_not_ready) {
    auto count = [](const std::optional<std::uint64_t>& v) {
      return v ? nlohmann::json(*v) : nlohmann::json();
    };
    j["receiver_not_ready"] = {{"naks_sent", count(n->naks_sent)},
                               {"naks_received", count(n->naks_received)},
                               {"source", n->source}};
  }
  if (r.counters && r.counters_per_interval)
    j["counters"]["per_interval"] = {{"interval_ms", r.counters_per_interval->interval_ms},
                                     {"ends_ms", r.counters_per_interval->ends_ms},
                                     {"moved", r.counters_per_interval->moved}};
  j["repeat"] = r.repeat;
  j["repeats"] = std::max<std::uint32_t>(c.parameters.repeats, 1);
  if (r.period) j["soak"] = {{"period", r.period}, {"cut_short", r.period_cut_short}};
  j["context"] = to_json(c);
  return j;
}

namespace {

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void begin(const RunContext& c) override { context_ = c; }
  void size_done(const SizeResult& r) override {
    // Replace, not throw: text that is not UTF-8 (a peer's, before the wire
    // escapes it; a device name) must never cost the run its record.
    write(to_json(r, context_));
  }
  /// The whole soak as one more record of the same kind, marked as its summary.
  void soak_done(const SoakSummary& s) override {
    nlohmann::json j = to_json(s.whole, context_);
    j["soak"] = {{"summary", true}, {"periods", s.periods}, {"stopped_by", s.stopped_by}};
    if (s.whole.latency) j["soak"]["latency_from"] = "the period with the highest p99";
    if (j.contains("counters")) j["counters"]["region"] = "the whole soak: every period's deltas summed";
    write(j);
  }

 private:
  /// One line, flushed: a soak's records reach a reader as each period ends.
  void write(const nlohmann::json& j) {
    out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out_.flush();
  }

  std::ostream& out_;
  RunContext context_;
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) {
  return std::make_unique<JsonReporter>(out);
}

}  // namespace rdmabench
