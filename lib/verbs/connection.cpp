// Creating a Connection's verbs objects from its plan, and tearing them down.
#include "rdmabench/verbs/connection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

namespace {

std::uint32_t random_psn() {
  std::random_device rd;
  return rd() & 0xFFFFFF;
}

ibv_qp_type verbs_type(QpType type) {
  return type == QpType::ud ? IBV_QPT_UD : type == QpType::uc ? IBV_QPT_UC : IBV_QPT_RC;
}

/// A QP on `pd`, through rdma_cm when `cm_id` is given; null (errno set) on failure.
QueuePair create_qp(ibv_pd* pd, ibv_qp_init_attr& attr, rdma_cm_id* cm_id) {
  if (!cm_id) return QueuePair(ibv_create_qp(pd, &attr));
  if (rdma_create_qp(cm_id, pd, &attr) != 0) return QueuePair();
  return QueuePair(cm_id->qp);
}

/// rdma_cm moves the QP to RTS itself, with the ack timeout set here (the
/// exchange method sets it when it connects the QP). iWARP runs over TCP,
/// which has its own retransmission: there is no ack timeout to set.
void set_cm_ack_timeout(rdma_cm_id* cm_id, TransportKind transport, std::uint8_t timeout,
                        const std::string& what) {
  if (!cm_id || transport == TransportKind::iwarp) return;
  if (rdma_set_option(cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof timeout) != 0)
    throw_system_error(fmt::format("rdma_set_option(ACK_TIMEOUT {}) for {}", timeout, what), errno);
}

/// --use-srq: the one receive queue every QP of the run takes its receives
/// from, as deep as the plan says (already checked against max_srq_wr).
SharedReceiveQueue create_srq(ibv_pd* pd, const ConnectionPlan& plan, const std::string& device) {
  ibv_srq_init_attr attr{};
  attr.attr.max_wr = plan.shared_receive_depth;
  attr.attr.max_sge = plan.qp_type == QpType::ud ? 2 : 1;  // GRH, then payload
  SharedReceiveQueue srq(ibv_create_srq(pd, &attr));
  if (!srq)
    throw_system_error(fmt::format("ibv_create_srq ({} receives, for --use-srq)", plan.shared_receive_depth),
                       errno, device + " may allow a smaller shared receive queue; lower -r or -q");
  return srq;
}

}  // namespace

DeviceLimits query_device_limits(ibv_context* context) {
  ibv_device_attr device{};
  if (int rc = ibv_query_device(context, &device); rc != 0) throw_system_error("ibv_query_device", rc);
  DeviceLimits limits;
  limits.max_qp = device.max_qp;
  limits.max_qp_wr = device.max_qp_wr;
  limits.max_cqe = device.max_cqe;
  limits.max_qp_init_rd_atom = device.max_qp_init_rd_atom;
  limits.max_qp_rd_atom = device.max_qp_rd_atom;
  limits.max_srq = device.max_srq;
  limits.max_srq_wr = device.max_srq_wr;
  limits.max_srq_sge = device.max_srq_sge;
  limits.max_mcast_grp = device.max_mcast_grp;
  limits.max_mcast_qp_attach = device.max_mcast_qp_attach;
  limits.vendor_id = device.vendor_id;
  limits.vendor_part_id = device.vendor_part_id;
  return limits;
}

Connection::Connection(std::unique_ptr<MemoryProvider> m) : memory(std::move(m)) {}

Connection::~Connection() {
  // Tell rdma_cm we are leaving while the QPs still exist; members then
  // tear down in the order their declaration describes.
  // Only connections that were made: disconnecting one still being made
  // waits in the kernel for the peer's answer (iWARP's iw_cm, uninterruptibly).
  // The load's connections (--load-qps) follow the latency's in cm_ids.
  const std::size_t connections = qps.size() + load.qps.size();
  for (std::size_t i = 0; i < cm_established && i < cm_ids.size() && i < connections; ++i)
    rdma_disconnect(cm_ids[i].get());
  // Where destroying one (its queue pair, its event channel) waits too, a
  // connection the peer never answered is left to the kernel, freed when
  // the process ends, so that the error that ends the run is told now.
  if (unanswered_connect_blocks_teardown(transport.kind) && cm_established < cm_ids.size()) {
    for (std::size_t i = cm_established; i < cm_ids.size(); ++i) (void)cm_ids[i].release();
    for (std::size_t i = cm_established; i < connections; ++i)
      (void)(i < qps.size() ? qps[i] : load.qps[i - qps.size()]).release();
    (void)cm_events.release();
  }
}

void Connection::use_device(Context owned, PortAttributes p, Transport t) {
  owned_context = std::move(owned);
  context = owned_context.get();
  port = std::move(p);
  transport = std::move(t);
}

void Connection::use_cm_device(ibv_context* routed, PortAttributes p, Transport t) {
  context = routed;
  port = std::move(p);
  transport = std::move(t);
}

void Connection::create_shared(ConnectionPlan p) {
  require(memory != nullptr, "internal: the connection's memory provider is made before its queues");
  plan = std::move(p);
  read_depth = plan.read_depth;
  read_responders = plan.read_responders;
  inline_reason = plan.inline_reason;

  pd.reset(ibv_alloc_pd(context));
  if (!pd) throw_system_error("ibv_alloc_pd", errno);
  cq.reset(ibv_create_cq(context, static_cast<int>(plan.send_cq_entries), nullptr, nullptr, 0));
  if (!cq) throw_system_error("ibv_create_cq", errno);
  recv_cq.reset(ibv_create_cq(context, static_cast<int>(plan.receive_cq_entries), nullptr, nullptr, 0));
  if (!recv_cq) throw_system_error("ibv_create_cq (receives)", errno);
  if (plan.shared_receive_depth) srq = create_srq(pd.get(), plan, port.device);

  local_psn = random_psn();
  const auto bytes = static_cast<std::size_t>(plan.buffer_bytes);
  local_buffer = memory->allocate(bytes);
  exposed_buffer = memory->allocate(bytes);
  relaxed_local = (plan.access.local_buffer & IBV_ACCESS_RELAXED_ORDERING) != 0;
  relaxed_exposed = (plan.access.exposed_buffer & IBV_ACCESS_RELAXED_ORDERING) != 0;
  auto local = memory->register_buffer(pd.get(), local_buffer, plan.access.local_buffer);
  auto exposed = memory->register_buffer(pd.get(), exposed_buffer, plan.access.exposed_buffer);
  local_mr = std::move(local.mr);
  exposed_mr = std::move(exposed.mr);
  registration = exposed.path;
  if (plan.qp_type == QpType::ud) {
    // The GRH goes to a scatter entry of its own, so that the payload lands
    // at the start of the exposed buffer, as on RC (validation reads it there).
    grh_buffer.resize(kUdGrhBytes);
    grh_mr.reset(ibv_reg_mr(pd.get(), grh_buffer.data(), kUdGrhBytes, IBV_ACCESS_LOCAL_WRITE));
    if (!grh_mr) throw_system_error("ibv_reg_mr (UD receive header)", errno);
  }
}

void Connection::add_queue_pair(rdma_cm_id* cm_id) {
  // Providers cap inline data differently (and say so only by failing), so
  // ask for less until the QP is created (the plan's tries). Later QPs ask
  // for what the first one got.
  const std::vector<std::uint32_t> tries =
      !qps.empty() ? std::vector<std::uint32_t>{max_inline} : plan.inline_tries;
  int last_error = 0;
  QueuePair qp;
  for (std::uint32_t inline_bytes : tries) {
    ibv_qp_init_attr attr{};
    attr.send_cq = cq.get();
    attr.recv_cq = recv_cq.get();
    attr.qp_type = verbs_type(plan.qp_type);
    attr.sq_sig_all = 0;  // selective signaling: the loops choose
    attr.cap.max_send_wr = plan.send_queue_depth;
    // With a shared receive queue the QP has no receive queue of its own:
    // the verbs ignore its receive capacities, so ask for none.
    attr.srq = srq.get();
    attr.cap.max_recv_wr = srq ? 0 : plan.receive_queue_depth;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = srq ? 0 : plan.qp_type == QpType::ud ? 2 : 1;  // GRH, then payload
    attr.cap.max_inline_data = inline_bytes;
    qp = create_qp(pd.get(), attr, cm_id);
    if (qp) {
      // Providers may round the amount up (rxe reports 16 when asked for
      // 0); -I is what the user wants used, so never inline more than it.
      max_inline = std::min(attr.cap.max_inline_data, inline_bytes);
      if (qps.empty() && inline_bytes < tries.front())
        inline_reason += fmt::format("; {} refused {} bytes", port.device, tries.front());
      break;
    }
    last_error = errno;
  }
  if (!qp && plan.qp.inline_bytes)
    throw_system_error(fmt::format("creating the {} queue pair with -I/--inline-size {}",
                                   to_string(plan.qp_type), *plan.qp.inline_bytes),
                       last_error, port.device + " may allow less inline data; lower -I");
  if (!qp)
    throw_system_error(fmt::format("creating {} queue pair {} of {}", to_string(plan.qp_type),
                                   qps.size() + 1, plan.queue_pairs),
                       last_error);
  set_cm_ack_timeout(cm_id, transport.kind, plan.ack_timeout, "-u/--qp-timeout");
  qps.push_back(std::move(qp));
}

void Connection::create_load() {
  const LoadPlan& lp = plan.load;
  if (!lp.queue_pairs) return;
  load.cq.reset(ibv_create_cq(context, static_cast<int>(lp.cq_entries), nullptr, nullptr, 0));
  if (!load.cq)
    throw_system_error(fmt::format("ibv_create_cq (--load-qps {}, {} entries)", lp.queue_pairs, lp.cq_entries),
                       errno);
  const auto bytes = static_cast<std::size_t>(lp.buffer_bytes);
  load.local_buffer = memory->allocate(bytes);
  load.exposed_buffer = memory->allocate(bytes);
  load.local_mr = memory->register_buffer(pd.get(), load.local_buffer, lp.access.local_buffer).mr;
  load.exposed_mr = memory->register_buffer(pd.get(), load.exposed_buffer, lp.access.exposed_buffer).mr;
}

void Connection::add_load_queue_pair(rdma_cm_id* cm_id) {
  ibv_qp_init_attr attr{};
  attr.send_cq = load.cq.get();
  attr.recv_cq = load.cq.get();
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 0;
  attr.cap.max_send_wr = LoadPlan::kDepth;
  attr.cap.max_recv_wr = plan.load.receive_depth;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  QueuePair qp = create_qp(pd.get(), attr, cm_id);
  if (!qp)
    throw_system_error(fmt::format("creating load queue pair {} of {} (--load-qps)", load.qps.size() + 1,
                                   plan.load.queue_pairs),
                       errno, port.device + " may allow fewer queue pairs; lower --load-qps");
  set_cm_ack_timeout(cm_id, transport.kind, plan.ack_timeout, "a load queue pair");
  load.qps.push_back(std::move(qp));
}

void Connection::join_multicast(const Gid& group, std::chrono::milliseconds timeout) {
  // rdma_cm joins from an address of the port: on Ethernet an IPv4 one
  // (it joins RoCE groups by IPv4 address), on InfiniBand the port's GID.
  Gid local = transport.gid.gid;
  if (port.link_layer == LinkLayer::ethernet && !is_ipv4_mapped(local)) {
    local = choose_gid(port, std::nullopt, AddressFamily::ipv4).gid;
    require(is_ipv4_mapped(local),
            fmt::format("{} port {} has no IPv4 address among its GIDs: rdma_cm joins RoCE multicast groups "
                        "from an IPv4 address",
                        port.device, port.port),
            "give the port's network interface an IPv4 address");
  }
  multicast = std::make_unique<MulticastMembership>(group, local, port.link_layer, port.device, timeout);
  for (const QueuePair& qp : qps) multicast->attach(qp.get());
  multicast_group = multicast->group();
}

void Connection::create_all(ConnectionPlan p) {
  create_shared(std::move(p));
  for (std::uint32_t q = 0; q < plan.queue_pairs; ++q) add_queue_pair(nullptr);
  create_load();
  for (std::uint32_t q = 0; q < plan.load.queue_pairs; ++q) add_load_queue_pair(nullptr);
}

}  // namespace rdmabench
