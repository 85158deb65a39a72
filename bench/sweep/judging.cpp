#include "sweep/judging.hpp"

namespace rdmabench::sweep_cli {

namespace {
bool is_bandwidth(const std::string& test) { return test.size() > 3 && test.substr(test.size() - 3) == "_bw"; }
}  // namespace

sweep::Figure judged_figure(const std::string& test) {
  if (is_bandwidth(test)) return {"bandwidth", "Gb/s", sweep::Better::higher};
  return {"p99 latency", "us", sweep::Better::lower};
}

std::optional<double> judged_value(const sweep::SweepRecord& record) {
  return is_bandwidth(record.test) ? record.figures.bw_avg_gbits : record.figures.lat_p99_us;
}

sweep::Thresholds thresholds_for(const std::string& test, const SweepLimits& limits,
                                 std::optional<double> port_rate_gbits) {
  sweep::Thresholds t;
  if (is_bandwidth(test)) {
    t.absolute = limits.min_gbps;
    if (limits.min_line_rate && port_rate_gbits) {
      t.min_share_of_line_rate = limits.min_line_rate;
      t.port_rate = *port_rate_gbits;
    }
    if (limits.min_share_of_median > 0) t.min_share_of_median = limits.min_share_of_median;
  } else {
    t.absolute = limits.max_p99_us;
    t.max_multiple_of_best = limits.max_p99_multiple;
  }
  return t;
}

sweep::Verdict judge_test(std::span<const sweep::SweepRecord> records, std::span<const sweep::Endpoint> endpoints,
                          const std::string& test, const sweep::Thresholds& thresholds) {
  sweep::PairMatrix matrix(endpoints.size());
  for (const auto& r : records) {
    if (r.test != test || r.pass != sweep::SweepPass::sweep) continue;
    const auto client = static_cast<std::size_t>(r.client.endpoint.rank);
    const auto server = static_cast<std::size_t>(r.server.endpoint.rank);
    if (client >= endpoints.size() || server >= endpoints.size() || client == server) continue;
    const auto value = judged_value(r);
    if (r.measured() && value)
      matrix.record(client, server, *value);
    else
      matrix.record_failure(client, server, r.error.empty() ? "no figure" : r.error);
  }
  return sweep::judge(matrix, endpoints, judged_figure(test), thresholds);
}

}  // namespace rdmabench::sweep_cli
