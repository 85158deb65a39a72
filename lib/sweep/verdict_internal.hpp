#pragma once
// The steps of judge(), one file each: pair limits (thresholds.cpp), blame
// (classify.cpp), the re-test plan (retest.cpp), the sentences
// (verdict_text.cpp) and the silent degraders (silent_degraders.cpp).

#include <optional>
#include <vector>

#include "rdmabench/sweep/verdict.hpp"

namespace rdmabench::sweep::detail {

/// The limits in force for one matrix, once the relative ones are resolved.
struct Limits {
  std::optional<double> absolute;  ///< the stricter of absolute and line-rate
  std::optional<double> relative;  ///< share of median or multiple of best, as a figure
  std::optional<double> median;
  Better better = Better::higher;
};

/// Throws rdmabench::Error for limits that do not fit the figure.
Limits resolve_limits(const PairMatrix& matrix, const Figure& figure, const Thresholds& thresholds);

/// Every measured or failed cell, with fails_absolute and fails_relative set.
std::vector<PairJudgement> judge_pairs(const PairMatrix& matrix, const Limits& limits);

/// Node, link and unattributed suspects (no sentences yet) for the pairs
/// whose `failing` flag is set.
std::vector<Suspect> classify(std::size_t endpoints, const std::vector<PairJudgement>& judged);

/// Each failing pair's ends partnered with known-good endpoints.
std::vector<DirectedPair> plan_retest(const PairMatrix& matrix, const std::vector<PairJudgement>& judged,
                                      const std::vector<Suspect>& suspects);

/// Sets `silent_degrader` on each measured pair of `degraded` that passes
/// its limits (silent_degraders.cpp).
void mark_silent_degraders(std::vector<PairJudgement>& judged, std::span<const DegradedPair> degraded);

/// One silent_degrader suspect per link with marked pairs, its sentence
/// naming each pair's figure and counters.
std::vector<Suspect> silent_degraders(const std::vector<PairJudgement>& judged, std::span<const DegradedPair> degraded,
                                      std::span<const Endpoint> endpoints, const Figure& figure);

/// Writes each suspect's sentence.
void write_sentences(std::vector<Suspect>& suspects, std::span<const Endpoint> endpoints,
                     const Figure& figure, const Limits& limits, const std::vector<PairJudgement>& judged);

}  // namespace rdmabench::sweep::detail
