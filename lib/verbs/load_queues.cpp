// The queue pairs of a latency test's background load (--load-qps): RC, on a
// CQ and buffers of their own, connected in the same handshake as the
// latency's queue pair (after it), so the latency thread shares nothing
// with them but the device and the protection domain.
#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"
#include "control/session_internal.hpp"
#include "verbs/access_flags.hpp"

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

BufferAccess load_access(const Session& s) {
  return access_for(load_access_spec(s.spec), s.transport.kind, s.qp_options.relaxed_ordering);
}

}  // namespace

void create_load_resources(Session& s) {
  const std::uint32_t qps = s.spec.load_queue_pairs;
  if (!qps) return;
  LoadQueues& load = s.load;
  // The server of a send load reaps its receives' completions here too.
  const std::uint32_t per_qp = LoadQueues::kDepth + (s.spec.load_op == LoadOp::send ? LoadQueues::kReceiveDepth : 0);
  const int cqes = static_cast<int>(qps * per_qp + 1);
  load.cq.reset(ibv_create_cq(s.context, cqes, nullptr, nullptr, 0));
  if (!load.cq) throw_system_error(fmt::format("ibv_create_cq (--load-qps {}, {} entries)", qps, cqes), errno);
  const auto bytes = static_cast<std::size_t>(s.spec.load_size);
  load.local_buffer = s.memory->allocate(bytes);
  load.exposed_buffer = s.memory->allocate(bytes);
  const BufferAccess access = load_access(s);
  load.local_mr = s.memory->register_buffer(s.pd.get(), load.local_buffer, access.local_buffer).mr;
  load.exposed_mr = s.memory->register_buffer(s.pd.get(), load.exposed_buffer, access.exposed_buffer).mr;
}

void add_load_queue_pair(Session& s, rdma_cm_id* cm_id) {
  ibv_qp_init_attr attr{};
  attr.send_cq = s.load.cq.get();
  attr.recv_cq = s.load.cq.get();
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 0;
  attr.cap.max_send_wr = LoadQueues::kDepth;
  attr.cap.max_recv_wr = s.spec.load_op == LoadOp::send ? LoadQueues::kReceiveDepth : 1;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  QueuePair qp;
  if (cm_id) {
    if (rdma_create_qp(cm_id, s.pd.get(), &attr) == 0) qp.reset(cm_id->qp);
  } else {
    qp.reset(ibv_create_qp(s.pd.get(), &attr));
  }
  if (!qp)
    throw_system_error(fmt::format("creating load queue pair {} of {} (--load-qps)", s.load.qps.size() + 1,
                                   s.spec.load_queue_pairs),
                       errno, s.port.device + " may allow fewer queue pairs; lower --load-qps");
  // As add_queue_pair: rdma_cm moves the QP to RTS with this ack timeout.
  if (cm_id && s.transport.kind != TransportKind::iwarp) {
    auto timeout = static_cast<std::uint8_t>(s.spec.qp_timeout);
    if (rdma_set_option(cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof timeout) != 0)
      throw_system_error("rdma_set_option(ACK_TIMEOUT) for a load queue pair", errno);
  }
  s.load.qps.push_back(std::move(qp));
}

wire::Endpoint load_endpoint(const Session& s, std::size_t index) {
  wire::Endpoint e = local_endpoint(s, 0);
  e.qp_number = s.load.qps.at(index)->qp_num;
  e.rkey = s.load.exposed_mr->rkey;
  e.address = reinterpret_cast<std::uint64_t>(s.load.exposed_buffer.data());
  e.length = s.load.exposed_buffer.size();
  return e;
}

void connect_load_qp(Session& s, std::size_t index, const wire::Endpoint& peer) {
  connect_paired_qp(s, s.load.qps.at(index).get(), /*reliable=*/true, load_access(s).qp, peer);
}

void adopt_load_remote(Session& s, const wire::Endpoint& peer) {
  require(peer.length >= s.spec.load_size,
          fmt::format("the peer's load buffer holds {} bytes, --load-size asks for {}", peer.length,
                      s.spec.load_size));
  s.load.remote = RemoteBuffer{peer.address, peer.rkey, peer.length};
}

}  // namespace rdmabench::detail
