// From records to what the report shows: per test, a matrix per figure
// its sweep records hold, the verdict on its main figure, and its re-tests.

#include <algorithm>

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"
#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// options.tests_in_order first, then the others as they first appear.
std::vector<std::string> test_order(std::span<const SweepRecord> records, const ReportOptions& options) {
  std::vector<std::string> order;
  auto add = [&order](const std::string& test) {
    if (std::find(order.begin(), order.end(), test) == order.end()) order.push_back(test);
  };
  for (const std::string& test : options.tests_in_order)
    if (std::any_of(records.begin(), records.end(), [&](const SweepRecord& r) { return r.test == test; })) add(test);
  for (const SweepRecord& r : records) add(r.test);
  return order;
}

/// Each endpoint as the first record that names it describes it.
std::vector<EndpointContext> endpoint_contexts(std::span<const SweepRecord> records,
                                               std::span<const Endpoint> endpoints) {
  std::vector<EndpointContext> contexts(endpoints.size());
  std::vector<bool> seen(endpoints.size(), false);
  for (EndpointIndex e = 0; e < endpoints.size(); ++e) contexts[e].endpoint = endpoints[e];
  for (const SweepRecord& r : records)
    for (const EndpointContext* c : {&r.client, &r.server}) {
      const EndpointIndex e = index_of_rank(endpoints, c->endpoint.rank);
      if (seen[e]) continue;
      seen[e] = true;
      contexts[e] = *c;
      contexts[e].endpoint = endpoints[e];  // the endpoint list is the authority on who is who
    }
  return contexts;
}

/// The figure keys any measured sweep record of the test holds, plus the
/// main one, in figure_fields() order.
std::vector<std::string> present_figures(const std::vector<const SweepRecord*>& sweep, std::string_view test) {
  std::vector<std::string> present;
  for (const FigureField& f : figure_fields())
    if (std::any_of(sweep.begin(), sweep.end(), [&](const SweepRecord* r) { return r->measured() && (r->figures.*f.member); }))
      present.emplace_back(f.key);
  const std::string main = main_figure_key(test, present);
  if (std::find(present.begin(), present.end(), main) != present.end()) return present;
  std::vector<std::string> with_main;
  for (const FigureField& f : figure_fields())
    if (f.key == main || std::find(present.begin(), present.end(), f.key) != present.end()) with_main.emplace_back(f.key);
  return with_main;
}

void fill_matrices(TestReport& t, const std::vector<const SweepRecord*>& sweep, std::span<const Endpoint> endpoints) {
  for (const std::string& key : present_figures(sweep, t.test))
    t.figures.push_back({key, describe_figure(key), PairMatrix(endpoints.size())});
  for (const SweepRecord* r : sweep) {
    const EndpointIndex c = index_of_rank(endpoints, r->client.endpoint.rank);
    const EndpointIndex s = index_of_rank(endpoints, r->server.endpoint.rank);
    for (FigureMatrix& f : t.figures) {
      if (!r->measured()) {
        f.matrix.record_failure(c, s, r->error);
        continue;
      }
      for (const FigureField& field : figure_fields())
        if (field.key == f.key && r->figures.*field.member) f.matrix.record(c, s, *(r->figures.*field.member));
    }
  }
}

/// A *_lat test's judged figure: its p99 when every measured pair kept
/// enough samples for one, else its median. Sets t.basis to say which, and
/// on how many samples.
std::string judged_latency(TestReport& t, const std::vector<const SweepRecord*>& sweep,
                           const std::vector<std::string>& keys, const std::string& p99_key) {
  std::optional<std::uint64_t> fewest, most;
  bool unknown = false;
  for (const SweepRecord* r : sweep) {
    if (!r->measured()) continue;
    if (!r->figures.lat_samples) {
      unknown = true;
      continue;
    }
    const std::uint64_t n = *r->figures.lat_samples;
    fewest = std::min(fewest.value_or(n), n);
    most = std::max(most.value_or(n), n);
  }
  const auto range = [&] {
    return *fewest == *most ? fmt::format("{} samples a pair", *fewest)
                            : fmt::format("{} to {} samples a pair", *fewest, *most);
  };
  const bool thin = fewest && *fewest < kSamplesForP99;
  const bool has_median = std::find(keys.begin(), keys.end(), "lat_median_us") != keys.end();
  if (thin && has_median) {
    t.basis = "median latency, of " + range();
    t.basis_why = fmt::format("a p99 of fewer than {} samples is one of the 10 worst, too thin to judge a pair "
                              "by; run -n {} or more to judge the p99", kSamplesForP99, kSamplesForP99);
    return "lat_median_us";
  }
  if (fewest) t.basis = fmt::format("p99 latency, of {}{}", range(), unknown ? " (some records do not say)" : "");
  else if (unknown) t.basis = "p99 latency (the records do not say of how many samples)";
  return p99_key;
}

Thresholds thresholds_for(std::string_view test, const ReportOptions& options) {
  if (test.ends_with("_bw")) return options.bandwidth;
  if (test.ends_with("_lat")) return options.latency;
  return {};
}

TestReport build_test(const std::string& test, std::span<const SweepRecord> records,
                      std::span<const Endpoint> endpoints, const ReportOptions& options) {
  TestReport t;
  t.test = test;
  std::vector<const SweepRecord*> sweep;
  for (const SweepRecord& r : records)
    if (r.test == test && r.pass == SweepPass::sweep) sweep.push_back(&r);
  fill_matrices(t, sweep, endpoints);
  std::vector<std::string> keys;
  for (const FigureMatrix& f : t.figures) keys.push_back(f.key);
  std::string main = main_figure_key(test, keys);
  if (test.ends_with("_lat")) main = judged_latency(t, sweep, keys, main);
  t.main = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), main) - keys.begin());
  const Thresholds thresholds = thresholds_for(test, options);
  t.counter_limits = options.counter_limits;
  fill_counter_findings(t, sweep, endpoints);
  t.verdict = judge(t.main_figure().matrix, endpoints, t.main_figure().figure, thresholds, t.past_counter_limits);
  t.limits = PairLimits(t.main_figure().matrix, t.main_figure().figure, thresholds);
  t.fabric_slow = std::any_of(t.verdict.suspects.begin(), t.verdict.suspects.end(),
                              [](const Suspect& s) { return s.kind == SuspectKind::fabric_slow; });
  assess_retests(t, records, endpoints);
  if (options.baseline) compare_with_baseline(t, sweep, endpoints, *options.baseline);
  return t;
}

}  // namespace

EndpointIndex index_of_rank(std::span<const Endpoint> endpoints, int rank) {
  for (EndpointIndex e = 0; e < endpoints.size(); ++e)
    if (endpoints[e].rank == rank) return e;
  throw Error(fmt::format("sweep report: a record names rank {}, which is not one of the {} endpoints", rank,
                          endpoints.size()),
              "report on a results.jsonl with the endpoint list of the sweep that wrote it");
}

ReportModel build_model(std::span<const SweepRecord> records, std::span<const Endpoint> endpoints,
                        const ReportOptions& options) {
  ReportModel model;
  model.endpoints.assign(endpoints.begin(), endpoints.end());
  model.contexts = endpoint_contexts(records, endpoints);
  for (const std::string& test : test_order(records, options))
    model.tests.push_back(build_test(test, records, endpoints, options));
  for (const SweepRecord& r : records) {
    if (r.started_utc.empty()) continue;
    if (model.first_started.empty() || r.started_utc < model.first_started) model.first_started = r.started_utc;
    if (r.started_utc > model.last_started) model.last_started = r.started_utc;
  }
  return model;
}

}  // namespace rdmabench::sweep::detail
