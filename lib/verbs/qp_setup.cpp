// Creating and connecting the verbs objects of a Session.
#include <fmt/format.h>

#include <algorithm>

#include <random>

#include "rdmabench/verbs/device.hpp"
#include "rdmabench/verbs/error.hpp"
#include "control/session_internal.hpp"
#include "verbs/access_flags.hpp"
#include "verbs/inline_size.hpp"

namespace rdmabench::detail {

namespace {

// Retry 6 times, not 7: rxe treats 7 as "retry forever", so a dead peer would
// never produce IBV_WC_RETRY_EXC_ERR. The ack timeout is the test's -u.
constexpr std::uint8_t kRetryCount = 6;
constexpr std::uint8_t kRnrRetry = 7;

std::uint32_t random_psn() {
  std::random_device rd;
  return rd() & 0xFFFFFF;
}

ibv_qp_init_attr qp_attributes(const Session& s, std::uint32_t inline_bytes) {
  ibv_qp_init_attr attr{};
  attr.send_cq = s.cq.get();
  attr.recv_cq = s.recv_cq.get();
  attr.qp_type = s.spec.qp_type == QpType::ud   ? IBV_QPT_UD
                 : s.spec.qp_type == QpType::uc ? IBV_QPT_UC
                                                : IBV_QPT_RC;
  attr.sq_sig_all = 0;  // selective signaling: the loops choose
  attr.cap.max_send_wr = s.send_queue_depth;
  attr.cap.max_recv_wr = s.receive_queue_depth;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = s.spec.qp_type == QpType::ud ? 2 : 1;  // GRH, then payload
  attr.cap.max_inline_data = inline_bytes;
  return attr;
}

void modify(ibv_qp* qp, ibv_qp_attr& attr, int mask, const char* state) {
  if (int rc = ibv_modify_qp(qp, &attr, mask); rc != 0)
    throw_system_error(fmt::format("ibv_modify_qp to {}", state), rc,
                       "the peer's QP attributes do not fit this port (check -x and the MTU)");
}

}  // namespace

void settle_connect_method(TestSpec& spec, const Transport& transport, const std::string& device,
                           const Notice& notice) {
  if (transport.requires_rdma_cm && spec.connect != ConnectMethod::rdma_cm) {
    notice(fmt::format("{} is {}: connecting with rdma_cm, which {} requires", device,
                       to_string(transport.kind), to_string(transport.kind)));
    spec.connect = ConnectMethod::rdma_cm;
  }
}

void check_device_can_run(const TestSpec& spec, ibv_context* context) {
  // Capabilities come from the device, never from its name. iWARP defines
  // only reliable connections (RFC 5040), so its devices offer RC alone.
  const char* name = ibv_get_device_name(context->device);
  require(spec.qp_type == QpType::rc || context->device->transport_type != IBV_TRANSPORT_IWARP,
          fmt::format("{} is iWARP, which offers only RC queue pairs: -c/--connection {} cannot "
                      "run on it",
                      name, to_string(spec.qp_type)),
          "use -c RC here, or a RoCE or InfiniBand device for UC and UD");
  // RDMAP (RFC 5040) has no immediate data, so iWARP devices have no
  // RDMA write with immediate.
  require(!spec.write_with_imm || context->device->transport_type != IBV_TRANSPORT_IWARP,
          fmt::format("{} is iWARP, which has no RDMA write with immediate data: --write-with-imm "
                      "cannot run on it",
                      name),
          "drop --write-with-imm here (rdma_send_* also measure completion-driven transfers)");
  // An open-loop write server sees each message only by its immediate data.
  require(!writes_with_immediate(spec) || context->device->transport_type != IBV_TRANSPORT_IWARP,
          fmt::format("{} is iWARP, which has no RDMA write with immediate data: rdma_write_lat --rate "
                      "needs it, since its server answers each write when its completion arrives",
                      name),
          "run rdma_send_lat --rate here for open-loop latency (or rdma_write_lat without --rate)");
  if (spec.operation != Operation::atomic) return;
  ibv_device_attr device{};
  if (int rc = ibv_query_device(context, &device); rc != 0) throw_system_error("ibv_query_device", rc);
  require(device.atomic_cap != IBV_ATOMIC_NONE,
          fmt::format("{} cannot run atomics: its atomic_cap is ATOMIC_NONE", name),
          "run rdma_atomic_* on a device that supports them (ibv_devinfo -v shows atomic_cap)");
}

void check_qp_options(const QpOptions& options, const PortAttributes& port, ConnectMethod method,
                      const Notice& notice) {
  if (options.mtu_bytes)
    require(*options.mtu_bytes <= port.active_mtu_bytes,
            fmt::format("-m/--mtu {} exceeds the active MTU of {} port {}, {} bytes",
                        *options.mtu_bytes, port.device, port.port, port.active_mtu_bytes),
            "give a smaller -m, or none to use the active MTU");
  // An iWARP device may have no P_Key table at all; index 0 then means "none".
  require(options.pkey_index == 0 || options.pkey_index < port.pkey_table_length,
          fmt::format("--pkey-index {} does not exist on {} port {}: its P_Key table holds {} "
                      "entr{} (valid indexes 0-{})",
                      options.pkey_index, port.device, port.port, port.pkey_table_length,
                      port.pkey_table_length == 1 ? "y" : "ies",
                      port.pkey_table_length ? port.pkey_table_length - 1 : 0),
          "give a smaller --pkey-index, or none for index 0");
  if (method == ConnectMethod::rdma_cm && (options.mtu_bytes || options.service_level))
    notice("-m/--mtu and --sl are ignored with rdma_cm, which takes them from the route");
  if (method == ConnectMethod::rdma_cm && options.pkey_index)
    notice("--pkey-index is ignored with rdma_cm, which takes the P_Key from the route");
}

void check_sizes_fit(const TestSpec& spec, const PortAttributes& port) {
  for (auto size : spec.sizes) {
    require(size >= 1, "message size 0 is invalid; give -s/--size between 1 and " +
                           std::to_string(port.max_message_bytes) + " bytes");
    require(size <= port.max_message_bytes,
            fmt::format("message size {} exceeds the largest message {} port {} can carry, "
                        "{} bytes",
                        size, port.device, port.port, port.max_message_bytes),
            "use a smaller -s/--size");
  }
  if (spec.load_queue_pairs)
    require(spec.load_size <= port.max_message_bytes,
            fmt::format("--load-size {} exceeds the largest message {} port {} can carry, {} bytes",
                        spec.load_size, port.device, port.port, port.max_message_bytes),
            "use a smaller --load-size");
}

void check_datagram_sizes(const TestSpec& spec, std::uint32_t mtu_bytes, const std::string& device) {
  if (spec.qp_type != QpType::ud) return;
  for (auto size : spec.sizes)
    require(size <= mtu_bytes,
            fmt::format("message size {} exceeds the path MTU of {} bytes on {}: a UD message "
                        "travels in one packet",
                        size, mtu_bytes, device),
            fmt::format("use -s/--size {} or less with -c UD, or -c RC/UC for larger messages",
                        mtu_bytes));
}

void create_shared_resources(Session& s) {
  check_device_can_run(s.spec, s.context);
  ibv_device_attr device{};
  if (int rc = ibv_query_device(s.context, &device); rc != 0)
    throw_system_error("ibv_query_device", rc);
  // A closed latency loop has one message out (two with a pending signal);
  // an open loop (--rate) keeps up to -t in flight, so its queue holds them.
  s.send_queue_depth = s.spec.measurement == Measurement::latency
                           ? std::max(kLatencySendDepth, s.spec.tx_depth)
                           : s.spec.tx_depth;
  require(s.spec.tx_depth >= 1 && s.send_queue_depth <= static_cast<std::uint32_t>(device.max_qp_wr),
          fmt::format("-t/--tx-depth {} is outside 1..{} (the device's max_qp_wr on {})",
                      s.spec.tx_depth, device.max_qp_wr, s.port.device));
  s.receive_queue_depth = !uses_receives(s.spec) ? 1
                          : s.spec.rx_depth      ? s.spec.rx_depth
                                                 : default_receive_depth(s.transport.kind,
                                                                         device.max_qp_wr,
                                                                         device.max_cqe,
                                                                         s.spec.queue_pairs);
  // An open-loop echo has up to -t messages in flight, each arriving into a
  // receive on both sides (a given -r below -t is refused with the options).
  if (server_echoes(s.spec)) s.receive_queue_depth = std::max(s.receive_queue_depth, s.spec.tx_depth);
  require(s.receive_queue_depth <= static_cast<std::uint32_t>(device.max_qp_wr),
          fmt::format("-r/--rx-depth {} exceeds {} (the device's max_qp_wr on {})",
                      s.receive_queue_depth, device.max_qp_wr, s.port.device));
  // Every QP's completions share two CQs, which must hold all of them.
  const std::uint64_t qps = s.spec.queue_pairs;
  const std::uint64_t send_cqes = qps * s.send_queue_depth + 1;
  const std::uint64_t receive_cqes = qps * s.receive_queue_depth + 1;
  require(qps <= static_cast<std::uint64_t>(device.max_qp) &&
              std::max(send_cqes, receive_cqes) <= static_cast<std::uint64_t>(device.max_cqe),
          fmt::format("-q/--qp {} with these queue depths needs {} completion entries; {} allows "
                      "{} QPs and {} entries per CQ",
                      qps, std::max(send_cqes, receive_cqes), s.port.device, device.max_qp,
                      device.max_cqe),
          "lower -q, -t or -r");

  // Outstanding RDMA reads: what the device allows, capped by the byte-wide
  // QP attribute; the peer's responder resources lower it at connect time.
  s.read_depth = static_cast<std::uint8_t>(std::min(device.max_qp_init_rd_atom, 255));
  s.read_responders = static_cast<std::uint8_t>(std::min(device.max_qp_rd_atom, 255));
  require(s.memory != nullptr, "internal: the session's memory provider is made before its queues");
  auto plan = plan_inline(s.spec, s.qp_options.inline_bytes, s.memory->cpu_accessible(),
                          DeviceIdentity{device.vendor_id, device.vendor_part_id});
  s.inline_tries = std::move(plan.tries);
  s.inline_reason = std::move(plan.reason);

  s.pd.reset(ibv_alloc_pd(s.context));
  if (!s.pd) throw_system_error("ibv_alloc_pd", errno);
  s.cq.reset(ibv_create_cq(s.context, static_cast<int>(send_cqes), nullptr, nullptr, 0));
  if (!s.cq) throw_system_error("ibv_create_cq", errno);
  s.recv_cq.reset(ibv_create_cq(s.context, static_cast<int>(receive_cqes), nullptr, nullptr, 0));
  if (!s.recv_cq) throw_system_error("ibv_create_cq (receives)", errno);

  s.local_psn = random_psn();
  const auto bytes = static_cast<std::size_t>(largest_size(s.spec));
  s.local_buffer = s.memory->allocate(bytes);
  s.exposed_buffer = s.memory->allocate(bytes);
  const BufferAccess access = access_for(s.spec, s.transport.kind, s.qp_options.relaxed_ordering);
  s.relaxed_local = (access.local_buffer & IBV_ACCESS_RELAXED_ORDERING) != 0;
  s.relaxed_exposed = (access.exposed_buffer & IBV_ACCESS_RELAXED_ORDERING) != 0;
  auto local = s.memory->register_buffer(s.pd.get(), s.local_buffer, access.local_buffer);
  auto exposed = s.memory->register_buffer(s.pd.get(), s.exposed_buffer, access.exposed_buffer);
  s.local_mr = std::move(local.mr);
  s.exposed_mr = std::move(exposed.mr);
  s.registration = exposed.path;
  if (s.spec.qp_type == QpType::ud) {
    // The GRH goes to a scatter entry of its own, so that the payload lands
    // at the start of the exposed buffer, as on RC (validation reads it there).
    s.grh_buffer.resize(kUdGrhBytes);
    s.grh_mr.reset(ibv_reg_mr(s.pd.get(), s.grh_buffer.data(), kUdGrhBytes, IBV_ACCESS_LOCAL_WRITE));
    if (!s.grh_mr) throw_system_error("ibv_reg_mr (UD receive header)", errno);
  }
}

void add_queue_pair(Session& s, rdma_cm_id* cm_id) {
  // Providers cap inline data differently (and say so only by failing), so
  // ask for less until the QP is created (the plan of create_shared_resources).
  // Later QPs ask for what the first one got.
  const auto& wanted = s.qp_options.inline_bytes;
  const std::vector<std::uint32_t> inline_tries =
      !s.qps.empty() ? std::vector<std::uint32_t>{s.max_inline} : s.inline_tries;
  int last_error = 0;
  QueuePair qp;
  for (std::uint32_t inline_bytes : inline_tries) {
    auto attr = qp_attributes(s, inline_bytes);
    if (cm_id) {
      if (rdma_create_qp(cm_id, s.pd.get(), &attr) == 0) qp.reset(cm_id->qp);
    } else {
      qp.reset(ibv_create_qp(s.pd.get(), &attr));
    }
    if (qp) {
      // Providers may round the amount up (rxe reports 16 when asked for
      // 0); -I is what the user wants used, so never inline more than it.
      s.max_inline = std::min(attr.cap.max_inline_data, inline_bytes);
      if (s.qps.empty() && inline_bytes < inline_tries.front())
        s.inline_reason += fmt::format("; {} refused {} bytes", s.port.device, inline_tries.front());
      break;
    }
    last_error = errno;
  }
  if (!qp && wanted)
    throw_system_error(fmt::format("creating the {} queue pair with -I/--inline-size {}",
                                   to_string(s.spec.qp_type), *wanted),
                       last_error, s.port.device + " may allow less inline data; lower -I");
  if (!qp)
    throw_system_error(fmt::format("creating {} queue pair {} of {}", to_string(s.spec.qp_type),
                                   s.qps.size() + 1, s.spec.queue_pairs),
                       last_error);
  // rdma_cm moves the QP to RTS itself, with the ack timeout set here (the
  // exchange method sets it in connect_qp). iWARP runs over TCP, which has
  // its own retransmission: there is no ack timeout to set.
  if (cm_id && s.transport.kind != TransportKind::iwarp) {
    auto timeout = static_cast<std::uint8_t>(s.spec.qp_timeout);
    if (rdma_set_option(cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof timeout) != 0)
      throw_system_error(fmt::format("rdma_set_option(ACK_TIMEOUT {}) for -u/--qp-timeout", timeout), errno);
  }
  s.qps.push_back(std::move(qp));
}

void create_queues(Session& s) {
  create_shared_resources(s);
  for (std::uint32_t q = 0; q < s.spec.queue_pairs; ++q) add_queue_pair(s, nullptr);
  create_load_resources(s);
  for (std::uint32_t q = 0; q < s.spec.load_queue_pairs; ++q) add_load_queue_pair(s, nullptr);
}

wire::Endpoint local_endpoint(const Session& s, std::size_t index) {
  wire::Endpoint e;
  e.qp_number = s.qps.at(index)->qp_num;
  e.packet_sequence = s.local_psn;
  e.lid = s.port.lid;
  e.gid = s.transport.gid.gid;
  e.mtu_bytes = s.qp_options.mtu_bytes.value_or(s.port.active_mtu_bytes);
  e.read_responders = s.read_responders;
  e.rkey = s.exposed_mr->rkey;
  e.address = reinterpret_cast<std::uint64_t>(s.exposed_buffer.data());
  e.length = s.exposed_buffer.size();
  e.memory = s.memory->name();
  return e;
}

void adopt_remote(Session& s, const wire::Endpoint& peer) {
  require(peer.length >= largest_size(s.spec),
          fmt::format("the peer's buffer holds {} bytes, the test needs {}", peer.length,
                      largest_size(s.spec)));
  s.remote = RemoteBuffer{peer.address, peer.rkey, peer.length};
  s.remote_memory = peer.memory;
}

namespace {

/// The route to the peer: its LID, and a GRH made from the GIDs where the
/// transport routes globally (RoCE, which has no LIDs; InfiniBand with -x,
/// for routed subnets).
ibv_ah_attr route_to(const Session& s, const wire::Endpoint& peer) {
  ibv_ah_attr ah{};
  ah.dlid = peer.lid;
  ah.sl = s.qp_options.service_level;
  ah.port_num = s.port.port;
  if (s.transport.global_route) {
    ah.is_global = 1;
    std::copy(peer.gid.begin(), peer.gid.end(), ah.grh.dgid.raw);
    ah.grh.sgid_index = static_cast<std::uint8_t>(s.transport.gid.index);
    ah.grh.hop_limit = 64;
    ah.grh.traffic_class = s.qp_options.traffic_class;
  }
  return ah;
}

/// UD: INIT with the Q_Key, RTR and RTS with nothing about the peer, whose
/// route goes into an address handle that every send names.
void connect_datagram_qp(Session& s, ibv_qp* qp, const wire::Endpoint& peer) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = s.qp_options.pkey_index;
  a.port_num = s.port.port;
  a.qkey = kUdQkey;
  modify(qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, "INIT");
  a = {};
  a.qp_state = IBV_QPS_RTR;
  modify(qp, a, IBV_QP_STATE, "RTR");
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = s.local_psn;
  modify(qp, a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");

  // The peer's port may carry less than ours.
  s.path_mtu_bytes = std::min(s.qp_options.mtu_bytes.value_or(s.port.active_mtu_bytes), peer.mtu_bytes);
  check_datagram_sizes(s.spec, s.path_mtu_bytes, s.port.device + " and its peer");
  auto route = route_to(s, peer);
  AddressHandle ah(ibv_create_ah(s.pd.get(), &route));
  if (!ah) throw_system_error("ibv_create_ah", errno, "the peer's GID or LID is not reachable from this port");
  s.peer_ahs.push_back(std::move(ah));
  s.peer_qpns.push_back(peer.qp_number);
}

}  // namespace

void connect_qp(Session& s, std::size_t index, const wire::Endpoint& peer) {
  const auto mtu = peer.mtu_bytes;
  require(mtu >= 256 && mtu <= 4096 && (mtu & (mtu - 1)) == 0,
          fmt::format("protocol error: the peer announces an MTU of {} bytes; expected 256, 512, "
                      "1024, 2048 or 4096",
                      mtu));
  ibv_qp* qp = s.qps.at(index).get();
  if (s.spec.qp_type == QpType::ud) return connect_datagram_qp(s, qp, peer);
  connect_paired_qp(s, qp, s.spec.qp_type == QpType::rc,
                    access_for(s.spec, s.transport.kind, s.qp_options.relaxed_ordering).qp, peer);
}

void connect_paired_qp(Session& s, ibv_qp* qp, bool reliable, int access, const wire::Endpoint& peer) {
  // RC and UC share the path; UC has no acks, so no retries, timeouts or
  // read resources.
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = s.qp_options.pkey_index;
  a.port_num = s.port.port;
  a.qp_access_flags = access;
  modify(qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT");

  s.path_mtu_bytes = std::min(s.qp_options.mtu_bytes.value_or(s.port.active_mtu_bytes), peer.mtu_bytes);
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = mtu_enum(s.path_mtu_bytes);
  a.dest_qp_num = peer.qp_number;
  a.rq_psn = peer.packet_sequence;
  a.ah_attr = route_to(s, peer);
  int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
  if (reliable) {
    a.max_dest_rd_atomic = s.read_responders;
    a.min_rnr_timer = 12;
    mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  }
  modify(qp, a, mask, "RTR");

  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = s.local_psn;
  mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
  if (reliable) {
    a.timeout = static_cast<std::uint8_t>(s.spec.qp_timeout);
    a.retry_cnt = kRetryCount;
    a.rnr_retry = kRnrRetry;
    s.read_depth = std::min(s.read_depth, peer.read_responders);
    a.max_rd_atomic = s.read_depth;
    mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
  }
  modify(qp, a, mask, "RTS");
}

rdma_conn_param cm_parameters(const Session& s) {
  rdma_conn_param p{};
  p.responder_resources = s.read_responders;
  p.initiator_depth = s.read_depth;
  p.retry_count = kRetryCount;
  p.rnr_retry_count = kRnrRetry;
  return p;
}

}  // namespace rdmabench::detail
