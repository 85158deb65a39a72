// Connecting a Connection's queue pairs to the peer's: the attribute
// exchange's state changes (INIT, RTR, RTS), the UD address handles, and
// the read depths both methods agree on.
#include <fmt/format.h>

#include <algorithm>

#include "rdmabench/verbs/connection.hpp"
#include "rdmabench/verbs/device.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/multicast_group.hpp"

namespace rdmabench {

namespace {

// Retry 6 times, not 7: rxe treats 7 as "retry forever", so a dead peer would
// never produce IBV_WC_RETRY_EXC_ERR. The ack timeout is the test's -u.
constexpr std::uint8_t kRetryCount = 6;
constexpr std::uint8_t kRnrRetry = 7;

void modify(ibv_qp* qp, ibv_qp_attr& attr, int mask, const char* state) {
  if (int rc = ibv_modify_qp(qp, &attr, mask); rc != 0)
    throw_system_error(fmt::format("ibv_modify_qp to {}", state), rc,
                       "the peer's QP attributes do not fit this port (check -x and the MTU)");
}

/// The route to the peer: its LID, and a GRH made from the GIDs where the
/// transport routes globally (RoCE, which has no LIDs; InfiniBand with -x,
/// for routed subnets), and always to a multicast group, whose GID is how
/// the fabric knows it (its LID too, on InfiniBand).
ibv_ah_attr route_to(const Connection& c, const QpAddress& peer) {
  ibv_ah_attr ah{};
  ah.dlid = peer.lid;
  ah.sl = c.plan.qp.service_level;
  ah.port_num = c.port.port;
  if (c.transport.global_route || peer.qp_number == kMulticastQpNumber) {
    ah.is_global = 1;
    std::copy(peer.gid.begin(), peer.gid.end(), ah.grh.dgid.raw);
    ah.grh.sgid_index = static_cast<std::uint8_t>(c.transport.gid.index);
    ah.grh.hop_limit = c.plan.qp.hop_limit ? c.plan.qp.hop_limit : kDefaultHopLimit;
    ah.grh.flow_label = c.plan.qp.flow_label;
    ah.grh.traffic_class = c.plan.qp.traffic_class;
  }
  return ah;
}

/// What this side asked for in the GRH; the hop limit only where the
/// kernel keeps it (InfiniBand): on RoCE it is the IP route's.
GrhFields requested_grh(const Connection& c) {
  GrhFields g;
  if (c.transport.kind == TransportKind::infiniband)
    g.hop_limit = c.plan.qp.hop_limit ? c.plan.qp.hop_limit : kDefaultHopLimit;
  g.flow_label = c.plan.qp.flow_label;
  g.traffic_class = c.plan.qp.traffic_class;
  return g;
}

/// The GRH a connected RC or UC queue pair's packets carry, as the device
/// reports it; what was asked where the query fails.
GrhFields grh_in_use(const Connection& c, ibv_qp* qp) {
  ibv_qp_attr a{};
  ibv_qp_init_attr init{};
  if (ibv_query_qp(qp, &a, IBV_QP_AV, &init) != 0 || !a.ah_attr.is_global) return requested_grh(c);
  return {a.ah_attr.grh.hop_limit, a.ah_attr.grh.flow_label, a.ah_attr.grh.traffic_class};
}

std::uint32_t our_mtu(const Connection& c) { return c.plan.qp.mtu_bytes.value_or(c.port.active_mtu_bytes); }

/// UD: INIT with the Q_Key, RTR and RTS with nothing about the peer, whose
/// route goes into an address handle that every send names.
void connect_datagram_qp(Connection& c, ibv_qp* qp, const QpAddress& peer) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = c.plan.qp.pkey_index;
  a.port_num = c.port.port;
  a.qkey = kUdQkey;
  modify(qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, "INIT");
  a = {};
  a.qp_state = IBV_QPS_RTR;
  modify(qp, a, IBV_QP_STATE, "RTR");
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = c.local_psn;
  modify(qp, a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");

  // The peer's port may carry less than ours, and a UD message travels in
  // one packet.
  c.path_mtu_bytes = std::min(our_mtu(c), peer.mtu_bytes);
  require(c.plan.buffer_bytes <= c.path_mtu_bytes,
          fmt::format("message size {} exceeds the path MTU of {} bytes on {} and its peer: a UD "
                      "message travels in one packet",
                      c.plan.buffer_bytes, c.path_mtu_bytes, c.port.device),
          fmt::format("use -s/--size {} or less with -c UD, or -c RC/UC for larger messages",
                      c.path_mtu_bytes));
  auto route = route_to(c, peer);
  AddressHandle ah(ibv_create_ah(c.pd.get(), &route));
  if (!ah) throw_system_error("ibv_create_ah", errno, "the peer's GID or LID is not reachable from this port");
  c.peer_ahs.push_back(std::move(ah));
  c.peer_qpns.push_back(peer.qp_number);
}

/// RC and UC share the path; UC has no acks, so no retries, timeouts or
/// read resources.
void connect_paired_qp(Connection& c, ibv_qp* qp, bool reliable, int access, const QpAddress& peer) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = c.plan.qp.pkey_index;
  a.port_num = c.port.port;
  a.qp_access_flags = access;
  modify(qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT");

  c.path_mtu_bytes = std::min(our_mtu(c), peer.mtu_bytes);
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = mtu_enum(c.path_mtu_bytes);
  a.dest_qp_num = peer.qp_number;
  a.rq_psn = peer.packet_sequence;
  a.ah_attr = route_to(c, peer);
  int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
  if (reliable) {
    a.max_dest_rd_atomic = c.read_responders;
    a.min_rnr_timer = 12;
    mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  }
  modify(qp, a, mask, "RTR");

  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = c.local_psn;
  mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
  if (reliable) {
    a.timeout = c.plan.ack_timeout;
    a.retry_cnt = kRetryCount;
    a.rnr_retry = kRnrRetry;
    c.read_depth = std::min(c.read_depth, peer.read_responders);
    a.max_rd_atomic = c.read_depth;
    mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
  }
  modify(qp, a, mask, "RTS");
}

}  // namespace

QpAddress Connection::address_of(std::size_t index, bool of_load) const {
  QpAddress a;
  a.qp_number = (of_load ? load.qps : qps).at(index)->qp_num;
  a.packet_sequence = local_psn;
  a.lid = port.lid;
  a.gid = transport.gid.gid;
  a.mtu_bytes = our_mtu(*this);
  a.read_responders = read_responders;
  return a;
}

namespace {
/// The peer's MTU, from its endpoint: one of the five IB MTUs.
void check_peer_mtu(std::uint32_t mtu) {
  require(mtu >= 256 && mtu <= 4096 && (mtu & (mtu - 1)) == 0,
          fmt::format("protocol error: the peer announces an MTU of {} bytes; expected 256, 512, "
                      "1024, 2048 or 4096",
                      mtu));
}
}  // namespace

void Connection::connect_qp(std::size_t index, const QpAddress& peer) {
  check_peer_mtu(peer.mtu_bytes);
  ibv_qp* qp = qps.at(index).get();
  if (plan.qp_type == QpType::ud) {
    connect_datagram_qp(*this, qp, peer);
    // An address handle cannot be queried: what was asked.
    if (index == 0 && transport.global_route) grh = requested_grh(*this);
    return;
  }
  connect_paired_qp(*this, qp, plan.qp_type == QpType::rc, plan.access.qp, peer);
  if (index == 0 && transport.global_route) grh = grh_in_use(*this, qp);
}

void Connection::connect_load_qp(std::size_t index, const QpAddress& peer) {
  check_peer_mtu(peer.mtu_bytes);
  connect_paired_qp(*this, load.qps.at(index).get(), /*reliable=*/true, plan.load.access.qp, peer);
}

void Connection::read_cm_path_mtu() {
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  path_mtu_bytes = ibv_query_qp(qps.front().get(), &attr, IBV_QP_PATH_MTU, &init) == 0 ? mtu_bytes(attr.path_mtu) : 0;
}

std::optional<int> Connection::cm_ip_family() const {
  if (cm_ids.empty()) return std::nullopt;
  const sockaddr* local = rdma_get_local_addr(cm_ids.front().get());
  return local ? std::optional<int>(local->sa_family) : std::nullopt;
}

void Connection::limit_reads(std::uint8_t peer_responders, std::uint8_t peer_initiators) {
  // Never promise more reads than the peer can take, nor issue more than it serves.
  read_depth = std::min(read_depth, peer_responders);
  read_responders = std::min(read_responders, peer_initiators);
}

rdma_conn_param Connection::cm_parameters() const {
  rdma_conn_param p{};
  p.responder_resources = read_responders;
  p.initiator_depth = read_depth;
  p.retry_count = kRetryCount;
  p.rnr_retry_count = kRnrRetry;
  return p;
}

}  // namespace rdmabench
