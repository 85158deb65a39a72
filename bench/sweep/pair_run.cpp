#include "sweep/pair_run.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include "rdmabench/control/session.hpp"
#include "rdmabench/engine/engine.hpp"
#include "rdmabench/report/figure_names.hpp"
#include "rdmabench/report/report.hpp"

namespace rdmabench::sweep_cli {

namespace {

/// Keeps what the run reported of its (single) size.
class ResultKeeper : public Reporter {
 public:
  void begin(const RunContext& context) override { context_ = context; }
  void size_done(const SizeResult& result) override { result_ = result; }
  const std::optional<SizeResult>& result() const { return result_; }
  const RunContext& context() const { return context_; }

 private:
  RunContext context_;
  std::optional<SizeResult> result_;
};

sweep::PairFigures figures_of(const SizeResult& result) {
  sweep::PairFigures f;
  if (result.bandwidth) {
    f.bw_average_Gbps = figure_names::gbps_from_mbps(result.bandwidth->average_mb_per_s);
    f.bw_peak_Gbps = figure_names::gbps_from_mbps(result.bandwidth->peak_mb_per_s);
    f.bw_message_rate_Mpps = result.bandwidth->message_rate_mpps;
  }
  if (result.latency) {
    f.lat_mean_us = result.latency->mean;
    f.lat_median_us = result.latency->median;
    f.lat_p99_us = result.latency->p99;
    f.lat_p99_9_us = result.latency->p99_9;
    f.lat_max_us = result.latency->max;
    f.lat_samples = result.latency->count;
  }
  return f;
}

RunContext measure(Session& session, const ClockInfo& clock, ResultKeeper& keeper) {
  RunContext context = describe_run(session, clock);
  run_benchmark(session, clock, context, keeper);
  return context;
}

}  // namespace

sweep::SweepRecord run_client_side(const PairJob& job, const ClockInfo& clock) {
  sweep::SweepRecord record;
  record.test = job.test;
  record.client = job.client;
  record.server = job.server;
  record.size_bytes = job.setup->spec.sizes.front();
  record.started_utc = utc_now_text();
  const auto started = std::chrono::steady_clock::now();
  try {
    SideConfig side = job.setup->side;
    side.server = job.server.address;
    // From this end's own address, which its partner's server accepts alone.
    side.source_address = job.client.address;
    side.tcp_port = job.cm_port;
    Session session = connect_over(side, job.setup->spec, job.notice, job.open_peer);
    ResultKeeper keeper;
    const RunContext context = measure(session, clock, keeper);
    if (!context.gid.empty()) record.client.gid = context.gid;
    record.run_id = run_id_text(context.run_id);
    if (!keeper.result()) throw Error("the run reported no figures");
    record.figures = figures_of(*keeper.result());
    record.counters.client = keeper.result()->counters;
  } catch (const std::exception& e) {
    record.error = e.what();
  }
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return record;
}

ServerOutcome run_server_side(const PairJob& job, const ClockInfo& clock) {
  try {
    SideConfig side = job.setup->side;
    side.tcp_port = job.cm_port;
    side.listen_for_control = false;
    Server server(side, job.setup->spec, job.notice);
    // rdma_cm requests from the partner's address alone: a stranger that
    // connects first would take the pair's QP and make a false suspect.
    Session session = server.accept_over(job.open_peer(), job.client.address);
    ResultKeeper keeper;
    measure(session, clock, keeper);
    return {{}, keeper.result() ? keeper.result()->counters : std::nullopt};
  } catch (const std::exception& e) {
    return {e.what(), std::nullopt};
  }
}

}  // namespace rdmabench::sweep_cli
