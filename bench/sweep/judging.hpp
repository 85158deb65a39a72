#pragma once
// The report's limits from the sweep's options. MPI-free.

#include <optional>
#include <span>
#include <string>

#include "rdmabench/sweep/record.hpp"
#include "rdmabench/sweep/report.hpp"
#include "sweep/sweep_options.hpp"

namespace rdmabench::sweep_cli {

/// The limits of `limits` that apply to `test` (a *_bw test is judged on
/// its bandwidth, a *_lat test on its p99); `port_rate_Gbps` is the
/// slowest port's rate, for --min-line-rate.
sweep::Thresholds thresholds_for(const std::string& test, const SweepLimits& limits,
                                 std::optional<double> port_rate_Gbps);

/// The slowest port's rate among `endpoints`, when any says.
std::optional<double> slowest_port(std::span<const sweep::EndpointContext> endpoints);

/// The report's options for a sweep run with `options`.
sweep::ReportOptions report_options(const SweepOptions& options, std::span<const sweep::EndpointContext> endpoints,
                                    std::vector<std::string> notes);

}  // namespace rdmabench::sweep_cli
