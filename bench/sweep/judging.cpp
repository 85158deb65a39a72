#include "sweep/judging.hpp"

#include <fmt/format.h>

#include "sweep/out_folder.hpp"

namespace rdmabench::sweep_cli {

namespace {
bool is_bandwidth(const std::string& test) { return test.size() > 3 && test.substr(test.size() - 3) == "_bw"; }
}  // namespace

sweep::Thresholds thresholds_for(const std::string& test, const SweepLimits& limits,
                                 std::optional<double> port_rate_Gbps) {
  sweep::Thresholds t;
  if (is_bandwidth(test)) {
    t.absolute = limits.min_gbps;
    if (limits.min_line_rate && port_rate_Gbps) {
      t.min_share_of_line_rate = limits.min_line_rate;
      t.port_rate = *port_rate_Gbps;
    }
    if (limits.min_share_of_median > 0) t.min_share_of_median = limits.min_share_of_median;
  } else {
    t.absolute = limits.max_p99_us;
    t.max_multiple_of_best = limits.max_p99_multiple;
  }
  return t;
}

std::optional<double> slowest_port(std::span<const sweep::EndpointContext> endpoints) {
  std::optional<double> slowest;
  for (const auto& e : endpoints)
    if (e.port_rate_Gbps && (!slowest || *e.port_rate_Gbps < *slowest)) slowest = e.port_rate_Gbps;
  return slowest;
}

sweep::ReportOptions report_options(const SweepOptions& options, std::span<const sweep::EndpointContext> endpoints,
                                    std::vector<std::string> notes) {
  sweep::ReportOptions report;
  report.tests_in_order = options.tests;
  report.bandwidth = thresholds_for("write_bw", options.limits, slowest_port(endpoints));
  report.latency = thresholds_for("write_lat", options.limits, slowest_port(endpoints));
  report.counter_limits = options.counter_limits;
  report.title = fmt::format("rdma_sweep: {} of {} endpoints", sweep::pattern_name(options.schedule.pattern),
                             endpoints.size());
  report.notes = std::move(notes);
  if (!options.baseline_dir.empty())
    report.baseline = sweep::Baseline{options.baseline_dir, read_baseline_records(options.baseline_dir),
                                      options.baseline_thresholds};
  return report;
}

}  // namespace rdmabench::sweep_cli
