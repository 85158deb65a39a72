// The report's view of the watched counters: which sweep pairs have one
// past its limit (the verdict's silent degraders, and a note on pairs that
// fail anyway), and a matrix per watched counter that moved, for its
// heatmap and CSV. A counter nobody watches (sent_pkts, port_xmit_data)
// moves in every pair and says nothing of faults: it gets no matrix.

#include <algorithm>
#include <set>

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

namespace {

/// The watched counters that moved at either end of any measured record.
std::set<std::string> watched_that_moved(const std::vector<const SweepRecord*>& sweep,
                                         std::span<const CounterLimit> limits) {
  std::set<std::string> moved;
  for (const SweepRecord* r : sweep)
    for (const auto* end : {&r->counters.client, &r->counters.server})
      if (*end && r->measured())
        for (const auto& counter : (*end)->moved)
          if (std::any_of(limits.begin(), limits.end(), [&](const CounterLimit& l) { return l.counter == counter.first; }))
            moved.insert(counter.first);
  return moved;
}

/// Both ends' delta of `name`; nothing when neither end read its counters.
std::optional<double> both_ends_delta(const SweepRecord& r, const std::string& name) {
  if (!r.counters.client && !r.counters.server) return std::nullopt;
  double sum = 0;
  for (const auto* end : {&r.counters.client, &r.counters.server})
    if (*end)
      if (const auto it = (*end)->moved.find(name); it != (*end)->moved.end()) sum += static_cast<double>(it->second);
  return sum;
}

}  // namespace

void fill_counter_findings(TestReport& t, const std::vector<const SweepRecord*>& sweep,
                           std::span<const Endpoint> endpoints) {
  for (const SweepRecord* r : sweep) {
    const DirectedPair pair{index_of_rank(endpoints, r->client.endpoint.rank),
                            index_of_rank(endpoints, r->server.endpoint.rank)};
    std::erase_if(t.past_counter_limits, [&](const DegradedPair& d) { return d.pair == pair; });
    if (const auto past = record_counters_past(t, *r)) t.past_counter_limits.push_back({pair, *past});
  }
  for (const std::string& name : watched_that_moved(sweep, t.counter_limits)) {
    FigureMatrix f{"counter_" + name, {name + ", both ends", "count", Better::lower}, PairMatrix(endpoints.size())};
    for (const SweepRecord* r : sweep) {
      const EndpointIndex c = index_of_rank(endpoints, r->client.endpoint.rank);
      const EndpointIndex s = index_of_rank(endpoints, r->server.endpoint.rank);
      if (!r->measured())
        f.matrix.record_failure(c, s, r->error);
      else if (const auto delta = both_ends_delta(*r, name))
        f.matrix.record(c, s, *delta);
    }
    t.counter_figures.push_back(std::move(f));
  }
}

std::optional<std::string> counters_past(const TestReport& t, const DirectedPair& pair) {
  for (const DegradedPair& d : t.past_counter_limits)
    if (d.pair == pair) return d.counters;
  return std::nullopt;
}

bool is_silent_degrader(const TestReport& t, const DirectedPair& pair) {
  return std::any_of(t.verdict.suspects.begin(), t.verdict.suspects.end(), [&](const Suspect& s) {
    return s.kind == SuspectKind::silent_degrader &&
           std::any_of(s.evidence.begin(), s.evidence.end(), [&](const PairJudgement& j) { return j.pair == pair; });
  });
}

std::optional<std::string> record_counters_past(const TestReport& t, const SweepRecord& record) {
  if (!record.measured()) return std::nullopt;
  const std::vector<CounterExcess> excesses = counter_excesses(record, t.counter_limits);
  if (excesses.empty()) return std::nullopt;
  return excesses_text(record, excesses);
}

}  // namespace rdmabench::sweep::detail
