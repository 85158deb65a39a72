#pragma once
// From a test's records to its verdict: the figure a test is judged on and
// the thresholds the options set for it. MPI-free.

#include <span>
#include <string>

#include "rdmabench/sweep/record.hpp"
#include "rdmabench/sweep/verdict.hpp"
#include "sweep/sweep_options.hpp"

namespace rdmabench::sweep_cli {

/// Bandwidth (Gb/s, higher is better) for *_bw tests, p99 latency (us,
/// lower is better) for *_lat tests.
sweep::Figure judged_figure(const std::string& test);
/// The record's value of that figure, if it has one.
std::optional<double> judged_value(const sweep::SweepRecord& record);

/// The limits of `limits` that apply to `test`; `port_rate_gbits` is the
/// slowest port's rate, for --min-line-rate.
sweep::Thresholds thresholds_for(const std::string& test, const SweepLimits& limits,
                                 std::optional<double> port_rate_gbits);

/// The verdict on one test's sweep-pass records.
sweep::Verdict judge_test(std::span<const sweep::SweepRecord> records, std::span<const sweep::Endpoint> endpoints,
                          const std::string& test, const sweep::Thresholds& thresholds);

}  // namespace rdmabench::sweep_cli
