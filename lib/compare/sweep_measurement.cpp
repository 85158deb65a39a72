// A sweep's record (a line of results.jsonl) as a Measurement. Its key: the
// test, the size, the pattern and the directed pair by host, device and
// address at each end (ranks are the launcher's numbering, which another
// sweep of the same fabric need not repeat). Its context: both ends' firmware, port rate,
// memory, rdma-core and kernel.

#include <fmt/format.h>

#include "rdmabench/compare/measurement.hpp"
#include "rdmabench/sweep/counter_limits.hpp"

namespace rdmabench::compare {

namespace {

/// An end by host, device and address: ranks on one host's one device
/// (the one-guest lab) differ by their --addresses alone.
std::string end_text(const sweep::EndpointContext& end) {
  return end.address.empty() ? fmt::format("{} {}", end.endpoint.host, end.endpoint.device)
                             : fmt::format("{} {} {}", end.endpoint.host, end.endpoint.device, end.address);
}

void add_end_context(const char* end, const sweep::EndpointContext& c, Measurement& m) {
  const auto put = [&](const char* name, const std::string& value) {
    if (!value.empty()) m.context[fmt::format("{} {}", end, name)] = value;
  };
  put("device", c.endpoint.device);
  put("firmware", c.firmware);
  put("link layer", c.link_layer);
  if (c.port_rate_Gbps) put("port rate Gb/s", fmt::format("{}", *c.port_rate_Gbps));
  put("memory", c.memory);
  put("GPU relationship", c.gpu_relationship);
  put("rdma-core", c.rdma_core);
  put("kernel", c.kernel);
  if (c.numa_node) put("NUMA node", std::to_string(*c.numa_node));
}

/// A watched counter's delta, both ends added (as the sweep's counter
/// matrices add them); nothing when neither end read counters.
std::optional<double> both_ends(const sweep::PairCounters& counters, const std::string& name) {
  std::optional<double> sum;
  for (const auto* end : {&counters.client, &counters.server}) {
    if (!*end || (*end)->counters_read == 0) continue;
    const auto it = (*end)->moved.find(name);
    sum = sum.value_or(0) + (it == (*end)->moved.end() ? 0.0 : static_cast<double>(it->second));
  }
  return sum;
}

}  // namespace

std::optional<Measurement> measurement_of_sweep_record(const sweep::SweepRecord& record, const ReadOptions& options,
                                                       std::string& why) {
  if (record.pass != sweep::SweepPass::sweep) {
    why = "re-test records (a re-test measures suspects again, not the schedule)";
    return std::nullopt;
  }
  if (!record.measured()) {
    why = "sweep pairs that failed to measure";
    return std::nullopt;
  }
  Measurement m;
  m.key.test = record.test;
  m.key.bytes = record.size_bytes;
  m.key.role = "pair";
  const std::string pair = end_text(record.client) + " -> " + end_text(record.server);
  if (options.ignore_endpoints) m.context["endpoints"] = pair;
  else m.key.endpoints = pair;
  if (!record.pattern.empty()) m.key.parameters["pattern"] = record.pattern;
  m.run_id = record.run_id;
  for (const sweep::FigureField& f : sweep::figure_fields())
    if (const auto& value = record.figures.*f.member) m.figures[std::string(f.key)] = *value;
  for (const sweep::CounterLimit& limit : sweep::default_counter_limits())
    if (auto delta = both_ends(record.counters, limit.counter)) m.figures["counter_" + limit.counter] = *delta;
  add_end_context("client", record.client, m);
  add_end_context("server", record.server, m);
  if (m.figures.empty()) {
    why = "records with no figure to compare";
    return std::nullopt;
  }
  return m;
}

}  // namespace rdmabench::compare
