#include "control/connection_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "rdmabench/verbs/error.hpp"
#include "control/access_flags.hpp"
#include "control/inline_size.hpp"

namespace rdmabench::detail {

namespace {

/// The spec whose access flags the load's buffers and QPs need: a bandwidth
/// test of the load's operation.
TestSpec load_access_spec(const TestSpec& spec) {
  TestSpec load = spec;
  load.operation = spec.load_op == LoadOp::read ? Operation::read
                   : spec.load_op == LoadOp::send ? Operation::send
                                                  : Operation::write;
  load.measurement = Measurement::bandwidth;
  load.write_with_imm = false;
  load.qp_type = QpType::rc;
  return load;
}

LoadPlan plan_load(const TestSpec& spec, const QpOptions& options, const Transport& transport) {
  LoadPlan load;
  load.queue_pairs = spec.load_queue_pairs;
  if (!load.queue_pairs) return load;
  const bool sends = spec.load_op == LoadOp::send;
  load.buffer_bytes = spec.load_size;
  load.receive_depth = sends ? LoadPlan::kReceiveDepth : 1;
  // The server of a send load reaps its receives' completions here too.
  load.cq_entries = load.queue_pairs * (LoadPlan::kDepth + (sends ? LoadPlan::kReceiveDepth : 0)) + 1;
  load.access = access_for(load_access_spec(spec), transport.kind, options.relaxed_ordering);
  return load;
}

/// Send and receive queue depths, checked against max_qp_wr.
void plan_depths(ConnectionPlan& plan, const TestSpec& spec, const PortAttributes& port,
                 const Transport& transport, const DeviceLimits& limits) {
  // A closed latency loop has one message out (two with a pending signal);
  // an open loop (--rate) keeps up to -t in flight, so its queue holds them.
  plan.send_queue_depth =
      spec.measurement == Measurement::latency ? std::max(kLatencySendDepth, spec.tx_depth) : spec.tx_depth;
  require(spec.tx_depth >= 1 && plan.send_queue_depth <= static_cast<std::uint32_t>(limits.max_qp_wr),
          fmt::format("-t/--tx-depth {} is outside 1..{} (the device's max_qp_wr on {})", spec.tx_depth,
                      limits.max_qp_wr, port.device));
  plan.receive_queue_depth = !uses_receives(spec) ? 1
                             : spec.rx_depth      ? spec.rx_depth
                                                  : default_receive_depth(transport.kind, limits.max_qp_wr,
                                                                          limits.max_cqe, plan.queue_pairs);
  // An open-loop echo has up to -t messages in flight, each arriving into a
  // receive on both sides (a given -r below -t is refused with the options).
  if (server_echoes(spec)) plan.receive_queue_depth = std::max(plan.receive_queue_depth, spec.tx_depth);
  require(plan.receive_queue_depth <= static_cast<std::uint32_t>(limits.max_qp_wr),
          fmt::format("-r/--rx-depth {} exceeds {} (the device's max_qp_wr on {})", plan.receive_queue_depth,
                      limits.max_qp_wr, port.device));
}

/// 131073 as "131,073": the counts in these messages run to eight digits.
std::string digits_grouped(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (auto at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
  return digits;
}

/// --use-srq: one shared receive queue holds what each QP's own would have
/// (-r x -q), so that a run with and without it keeps as many receives
/// posted. A depth the user gave must fit the device's max_srq_wr; the
/// default is lowered to what the device's SRQ and one CQ hold, and the
/// report says so.
void plan_shared_receives(ConnectionPlan& plan, const TestSpec& spec, const PortAttributes& port,
                          const DeviceLimits& limits) {
  if (!spec.use_srq) return;
  require(limits.max_srq > 0,
          fmt::format("--use-srq needs a shared receive queue, and {} offers none (its max_srq is 0)",
                      port.device),
          "drop --use-srq on both sides");
  const int sge = spec.qp_type == QpType::ud ? 2 : 1;  // UD: the GRH, then the payload
  require(limits.max_srq_sge >= sge,
          fmt::format("--use-srq with -c/--connection {} needs {} scatter entries per shared receive; {} "
                      "allows {} (max_srq_sge)",
                      to_string(spec.qp_type), sge, port.device, limits.max_srq_sge),
          "drop --use-srq on both sides, or use -c RC");
  const std::uint64_t wanted = std::uint64_t{plan.receive_queue_depth} * plan.queue_pairs;
  const auto srq_max = static_cast<std::uint64_t>(std::max(limits.max_srq_wr, 1));
  require(wanted <= srq_max || !spec.rx_depth,
          fmt::format("--use-srq with -q/--qp {} and -r/--rx-depth {} needs a shared receive queue of {} "
                      "receives (-r x -q); {} allows {} (max_srq_wr)",
                      plan.queue_pairs, plan.receive_queue_depth, digits_grouped(wanted), port.device,
                      digits_grouped(srq_max)),
          "lower -r or -q");
  const auto cq_max = static_cast<std::uint64_t>(std::max(limits.max_cqe - 1, 1));
  const std::uint64_t depth = spec.rx_depth ? wanted : std::min({wanted, srq_max, cq_max});
  plan.shared_receive_depth = static_cast<std::uint32_t>(depth);
  const std::string per_qp = spec.rx_depth ? fmt::format("-r/--rx-depth {}", plan.receive_queue_depth)
                                           : fmt::format("the default depth {}", plan.receive_queue_depth);
  plan.shared_receive_reason =
      plan.queue_pairs == 1 ? per_qp : fmt::format("{} x {} QPs", per_qp, plan.queue_pairs);
  if (depth < wanted)
    plan.shared_receive_reason += depth == srq_max
                                      ? fmt::format(", lowered to {}'s max_srq_wr", port.device)
                                      : fmt::format(", lowered to what one {} CQ holds", port.device);
}

/// Every QP's completions share two CQs, which must hold all of them.
/// `option` is what sets the number of QPs: -q, or -g for a multicast server.
void plan_completion_queues(ConnectionPlan& plan, const PortAttributes& port, const DeviceLimits& limits,
                            const char* option) {
  const std::uint64_t qps = plan.queue_pairs;
  const std::string_view short_option = std::string_view(option).substr(0, 2);
  require(qps <= static_cast<std::uint64_t>(limits.max_qp),
          fmt::format("{} {} exceeds the {} QPs {} allows", option, qps,
                      digits_grouped(static_cast<std::uint64_t>(limits.max_qp)), port.device),
          fmt::format("lower {}", short_option));
  plan.send_cq_entries = qps * plan.send_queue_depth + 1;
  // With --use-srq, at most the shared queue's receives are outstanding.
  plan.receive_cq_entries = plan.shared_receive_depth ? plan.shared_receive_depth + std::uint64_t{1}
                                                      : qps * plan.receive_queue_depth + 1;
  // Name the depth that decides, as the user gave it: -t for the send CQ,
  // -r for the receive CQ.
  const bool sends_decide = plan.send_cq_entries >= plan.receive_cq_entries;
  const std::uint64_t needed = sends_decide ? plan.send_cq_entries : plan.receive_cq_entries;
  require(needed <= static_cast<std::uint64_t>(limits.max_cqe),
          fmt::format("{} {} with {} {} needs {} completion entries in one CQ (QPs x depth + 1); {} "
                      "allows {}",
                      option, qps, sends_decide ? "-t/--tx-depth" : "-r/--rx-depth",
                      sends_decide ? plan.send_queue_depth : plan.receive_queue_depth, digits_grouped(needed),
                      port.device, digits_grouped(static_cast<std::uint64_t>(limits.max_cqe))),
          fmt::format("lower {} or {}", short_option, sends_decide ? "-t" : "-r"));
}

/// A multicast server's receivers: the device must attach that many
/// queue pairs to one group.
void check_multicast_receivers(const ConnectionPlan& plan, const PortAttributes& port, const DeviceLimits& limits) {
  require(limits.max_mcast_grp > 0,
          fmt::format("{} offers no multicast groups (its max_mcast_grp is 0): -g/--mcg cannot run on it",
                      port.device),
          "run multicast on a RoCE or InfiniBand device (ibv_devinfo -v shows max_mcast_grp)");
  require(plan.queue_pairs <= static_cast<std::uint64_t>(limits.max_mcast_qp_attach),
          fmt::format("-g/--mcg {} exceeds the {} queue pairs {} attaches to one multicast group "
                      "(max_mcast_qp_attach)",
                      plan.queue_pairs, limits.max_mcast_qp_attach, port.device),
          fmt::format("give -g {} or fewer", limits.max_mcast_qp_attach));
}

}  // namespace

std::uint32_t queue_pairs_on(const TestSpec& spec, Role role) {
  return spec.multicast_receivers && role == Role::server ? spec.multicast_receivers : spec.queue_pairs;
}

ConnectionPlan plan_connection(const TestSpec& spec, Role role, const QpOptions& options,
                               const PortAttributes& port, const Transport& transport,
                               const DeviceLimits& limits, bool memory_cpu_readable) {
  ConnectionPlan plan;
  plan.qp_type = spec.qp_type;
  plan.queue_pairs = queue_pairs_on(spec, role);
  const bool receives_multicast = spec.multicast_receivers && role == Role::server;
  if (receives_multicast) check_multicast_receivers(plan, port, limits);
  plan.qp = options;
  plan.ack_timeout = static_cast<std::uint8_t>(spec.qp_timeout);
  plan.buffer_bytes = largest_size(spec);
  plan_depths(plan, spec, port, transport, limits);
  plan_shared_receives(plan, spec, port, limits);
  plan_completion_queues(plan, port, limits, receives_multicast ? "-g/--mcg" : "-q/--qp");
  // Outstanding RDMA reads: what the device allows, capped by the byte-wide
  // QP attribute; the peer's responder resources lower it at connect time.
  plan.read_depth = static_cast<std::uint8_t>(std::clamp(limits.max_qp_init_rd_atom, 0, 255));
  plan.read_responders = static_cast<std::uint8_t>(std::clamp(limits.max_qp_rd_atom, 0, 255));
  auto inline_plan = plan_inline(spec, options.inline_bytes, memory_cpu_readable,
                                 DeviceIdentity{limits.vendor_id, limits.vendor_part_id});
  plan.inline_tries = std::move(inline_plan.tries);
  plan.inline_reason = std::move(inline_plan.reason);
  plan.access = access_for(spec, transport.kind, options.relaxed_ordering);
  plan.load = plan_load(spec, options, transport);
  return plan;
}

}  // namespace rdmabench::detail
