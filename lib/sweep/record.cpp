// results.jsonl: one SweepRecord per line as JSON. Empty strings and absent
// figures are left out of a line, so a line says only what was known; the
// reader names the field (and read_records the line) that does not fit.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "rdmabench/sweep/record.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep {

using nlohmann::json;

namespace {

constexpr FigureField kFigureFields[] = {
    {"bw_average_Gbps", &PairFigures::bw_average_Gbps}, {"bw_peak_Gbps", &PairFigures::bw_peak_Gbps},
    {"bw_message_rate_Mpps", &PairFigures::bw_message_rate_Mpps}, {"lat_mean_us", &PairFigures::lat_mean_us},
    {"lat_median_us", &PairFigures::lat_median_us},     {"lat_p99_us", &PairFigures::lat_p99_us},
    {"lat_p99_9_us", &PairFigures::lat_p99_9_us},   {"lat_max_us", &PairFigures::lat_max_us},
};

void put_text(json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

template <typename T>
void put_optional(json& object, const char* key, const std::optional<T>& value) {
  if (value) object[key] = *value;
}

json context_json(const EndpointContext& c) {
  json j{{"rank", c.endpoint.rank}, {"host", c.endpoint.host}, {"device", c.endpoint.device},
         {"rail", c.endpoint.rail}, {"port", c.port}};
  put_text(j, "address", c.address);
  put_text(j, "gid", c.gid);
  put_optional(j, "port_rate_Gbps", c.port_rate_Gbps);
  put_text(j, "link_layer", c.link_layer);
  put_text(j, "firmware", c.firmware);
  put_optional(j, "numa_node", c.numa_node);
  put_text(j, "memory", c.memory);
  put_text(j, "gpu_relationship", c.gpu_relationship);
  put_text(j, "rdma_core", c.rdma_core);
  put_text(j, "kernel", c.kernel);
  put_optional(j, "host_cpus", c.host_cpus);
  return j;
}

/// One end's counters, named as the pair JSON's `counters` names them.
json deltas_json(const CounterDeltas& d) {
  json j{{"source", d.source}, {"host_wide", d.host_wide}, {"read", d.counters_read},
         {"moved", json::object()}, {"went_backwards", d.went_backwards}};
  for (const auto& [name, delta] : d.moved) j["moved"][name] = delta;
  return j;
}

/// One JSON object being read; `path` ("client.") prefixes the field names
/// that errors quote.
class Fields {
 public:
  Fields(const json& object, std::string path) : object_(object), path_(std::move(path)) {
    require(object.is_object(), "sweep record: " + where() + " is not a JSON object",
            "each line of results.jsonl is one object as rdma_sweep writes it");
  }

  const json* find(const char* key, bool required) const {
    const auto it = object_.find(key);
    if (it != object_.end() && !it->is_null()) return &*it;
    require(!required, "sweep record: field '" + path_ + key + "' is missing",
            "every record names its test, pass, round, and the rank, host and device of both ends");
    return nullptr;
  }

  std::string text(const char* key, bool required = false) const {
    const json* v = find(key, required);
    if (!v) return {};
    require(v->is_string(), wrong(key, "a string", *v));
    return v->get<std::string>();
  }

  std::optional<double> number(const char* key) const {
    const json* v = find(key, false);
    if (!v) return std::nullopt;
    require(v->is_number(), wrong(key, "a number", *v));
    return v->get<double>();
  }

  template <typename Int>
  std::optional<Int> integer(const char* key, bool required = false) const {
    const json* v = find(key, required);
    if (!v) return std::nullopt;
    const bool whole = std::is_signed_v<Int> ? v->is_number_integer() : v->is_number_unsigned();
    const char* expected = std::is_signed_v<Int> ? "an integer" : "a whole number, 0 or more";
    require(whole, wrong(key, expected, *v));
    // A number too large for the field is refused, not cut to its low bits
    // ("rank": 4294967296 would read back as rank 0).
    constexpr auto low = std::numeric_limits<Int>::min();
    constexpr auto high = std::numeric_limits<Int>::max();
    const bool fits = v->is_number_unsigned()
                          ? v->get<std::uint64_t>() <= static_cast<std::uint64_t>(high)
                          : v->get<std::int64_t>() >= static_cast<std::int64_t>(low) &&
                                v->get<std::int64_t>() <= static_cast<std::int64_t>(high);
    require(fits, wrong(key, fmt::format("{} between {} and {}", expected, low, high).c_str(), *v));
    return v->get<Int>();
  }

  Fields object(const char* key) const { return Fields(*find(key, true), path_ + key + "."); }

  std::optional<bool> boolean(const char* key) const {
    const json* v = find(key, false);
    if (!v) return std::nullopt;
    require(v->is_boolean(), wrong(key, "true or false", *v));
    return v->get<bool>();
  }

  /// The names and whole numbers of an object field, e.g. "moved".
  std::map<std::string, std::uint64_t> counts(const char* key) const {
    std::map<std::string, std::uint64_t> values;
    if (!find(key, false)) return values;
    const Fields inner = object(key);
    for (const auto& item : find(key, true)->items())
      values[item.key()] = *inner.integer<std::uint64_t>(item.key().c_str(), true);
    return values;
  }

  /// The strings of an array field, e.g. "went_backwards".
  std::vector<std::string> texts(const char* key) const {
    std::vector<std::string> values;
    const json* v = find(key, false);
    if (!v) return values;
    require(v->is_array(), wrong(key, "an array of names", *v));
    for (const json& item : *v) {
      require(item.is_string(), wrong(key, "an array of names", *v));
      values.push_back(item.get<std::string>());
    }
    return values;
  }

 private:
  std::string where() const { return path_.empty() ? "the line" : "field '" + path_.substr(0, path_.size() - 1) + "'"; }
  std::string wrong(const char* key, const char* expected, const json& got) const {
    return fmt::format("sweep record: field '{}{}' should be {}, not {}", path_, key, expected, got.dump());
  }

  const json& object_;
  std::string path_;
};

EndpointContext read_context(const Fields& f) {
  EndpointContext c;
  c.endpoint.rank = *f.integer<int>("rank", true);
  c.endpoint.host = f.text("host", true);
  c.endpoint.device = f.text("device", true);
  c.endpoint.rail = f.integer<int>("rail").value_or(0);
  c.port = f.integer<int>("port").value_or(1);
  c.address = f.text("address");
  c.gid = f.text("gid");
  c.port_rate_Gbps = f.number("port_rate_Gbps");
  c.link_layer = f.text("link_layer");
  c.firmware = f.text("firmware");
  c.numa_node = f.integer<int>("numa_node");
  c.memory = f.text("memory");
  c.gpu_relationship = f.text("gpu_relationship");
  c.rdma_core = f.text("rdma_core");
  c.kernel = f.text("kernel");
  c.host_cpus = f.integer<int>("host_cpus");
  return c;
}

CounterDeltas read_deltas(const Fields& f) {
  CounterDeltas d;
  d.source = f.text("source");
  d.host_wide = f.boolean("host_wide").value_or(false);
  d.counters_read = f.integer<std::size_t>("read").value_or(0);
  d.moved = f.counts("moved");
  d.went_backwards = f.texts("went_backwards");
  return d;
}

SweepPass read_pass(const Fields& f) {
  const std::string pass = f.text("pass", true);
  if (pass == pass_name(SweepPass::sweep)) return SweepPass::sweep;
  require(pass == pass_name(SweepPass::retest), "sweep record: field 'pass' is '" + pass + "'",
          "a record's pass is \"sweep\" or \"retest\"");
  return SweepPass::retest;
}

}  // namespace

std::span<const FigureField> figure_fields() { return kFigureFields; }

std::string to_json_text(const EndpointContext& context) { return context_json(context).dump(); }

EndpointContext context_from_json_text(const std::string& text) {
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(std::string("endpoint context: not JSON (") + e.what() + ")");
  }
  return read_context(Fields(parsed, "endpoint."));
}

std::string to_json_text(const CounterDeltas& deltas) { return deltas_json(deltas).dump(); }

CounterDeltas counter_deltas_from_json_text(const std::string& text) {
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(std::string("counter deltas: not JSON (") + e.what() + ")");
  }
  return read_deltas(Fields(parsed, "counters."));
}

std::string_view pass_name(SweepPass pass) { return pass == SweepPass::retest ? "retest" : "sweep"; }

std::string to_json_line(const SweepRecord& r) {
  json j{{"schema_version", kSweepSchemaVersion}, {"host", r.client.endpoint.host},
         {"test", r.test}, {"pass", pass_name(r.pass)}, {"round", r.round},
         {"client", context_json(r.client)}, {"server", context_json(r.server)}, {"size_bytes", r.size_bytes}};
  put_text(j, "pattern", r.pattern);
  json figures = json::object();
  for (const FigureField& f : kFigureFields) put_optional(figures, std::string(f.key).c_str(), r.figures.*f.member);
  put_optional(figures, "lat_samples", r.figures.lat_samples);
  if (!figures.empty()) j["figures"] = std::move(figures);
  json counters = json::object();
  if (r.counters.client) counters["client"] = deltas_json(*r.counters.client);
  if (r.counters.server) counters["server"] = deltas_json(*r.counters.server);
  if (!counters.empty()) j["counters"] = std::move(counters);
  put_text(j, "error", r.error);
  j["seconds"] = r.seconds;
  put_text(j, "started_utc", r.started_utc);
  put_text(j, "run_id", r.run_id);
  return j.dump();
}

SweepRecord from_json_line(const std::string& line) {
  json parsed;
  try {
    parsed = json::parse(line);
  } catch (const json::parse_error& e) {
    throw Error(std::string("sweep record: not JSON (") + e.what() + ")",
                "each line of results.jsonl is one JSON object");
  }
  const Fields f(parsed, "");
  const auto schema = f.integer<int>("schema_version");
  require(schema == kSweepSchemaVersion,
          schema ? fmt::format("sweep record: schema_version {} is not this rdma_sweep's ({})", *schema,
                               kSweepSchemaVersion)
                 : std::string("sweep record: no schema_version: written by an rdma_sweep before the figures' "
                               "rename (CHANGELOG.md)"),
          "resume a sweep with the rdma_sweep that began it, or start a fresh --out folder");
  SweepRecord r;
  r.test = f.text("test", true);
  require(!r.test.empty(), "sweep record: field 'test' is empty", "name the test, e.g. \"write_bw\"");
  r.pattern = f.text("pattern");
  r.pass = read_pass(f);
  r.round = *f.integer<std::size_t>("round", true);
  r.client = read_context(f.object("client"));
  r.server = read_context(f.object("server"));
  r.size_bytes = f.integer<std::uint64_t>("size_bytes").value_or(0);
  if (f.find("figures", false)) {
    const Fields figures = f.object("figures");
    for (const FigureField& ff : kFigureFields) r.figures.*ff.member = figures.number(std::string(ff.key).c_str());
    r.figures.lat_samples = figures.integer<std::uint64_t>("lat_samples");
  }
  if (f.find("counters", false)) {
    const Fields counters = f.object("counters");
    if (counters.find("client", false)) r.counters.client = read_deltas(counters.object("client"));
    if (counters.find("server", false)) r.counters.server = read_deltas(counters.object("server"));
  }
  r.error = f.text("error");
  r.seconds = f.number("seconds").value_or(0);
  r.started_utc = f.text("started_utc");
  r.run_id = f.text("run_id");
  return r;
}

std::vector<SweepRecord> read_records(std::istream& in, std::size_t* torn_bytes) {
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  const auto blank = [](const std::string& l) { return l.find_first_not_of(" \t\r") == std::string::npos; };
  std::size_t last = lines.size();
  while (last > 0 && blank(lines[last - 1])) --last;
  std::vector<SweepRecord> records;
  if (torn_bytes) *torn_bytes = 0;
  for (std::size_t i = 0; i < last; ++i) {
    if (blank(lines[i])) continue;  // a blank line says nothing
    try {
      records.push_back(from_json_line(lines[i]));
    } catch (const Error& e) {
      // The last line alone may be cut short: a crash or a full disk
      // mid-append. It is dropped and counted; any other bad line is an error.
      if (torn_bytes && i + 1 == last) {
        *torn_bytes = lines[i].size();
        break;
      }
      // what() already carries the hint; the line number goes in front of it.
      throw Error("results.jsonl line " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  return records;
}

}  // namespace rdmabench::sweep
