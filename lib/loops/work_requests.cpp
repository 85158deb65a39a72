// Work requests the timed loops post: one prepared per size, reused.
#include <arpa/inet.h>
#include <fmt/format.h>

#include "loops/loop_kit.hpp"
#include "loops/receive_lanes.hpp"

namespace rdmabench::detail {

namespace {
/// What --write-with-imm writes carry ("RDMB"); the target checks nothing
/// but the completion's arrival and length.
constexpr std::uint32_t kImmediateData = 0x52444D42;
}  // namespace

PreparedOperation prepare_operation(const LoopView& v, std::uint64_t bytes) {
  PreparedOperation p;
  p.sge.addr = reinterpret_cast<std::uint64_t>(v.local_buffer.data());
  p.sge.length = static_cast<std::uint32_t>(bytes);
  p.sge.lkey = v.local_mr->lkey;
  p.wr.num_sge = 1;
  p.wr.wr.rdma.remote_addr = v.remote.address;
  p.wr.wr.rdma.rkey = v.remote.rkey;
  if (v.spec.qp_type == QpType::ud) {
    // A datagram names its destination in every request (the union's other half).
    p.wr.wr.ud.ah = v.peer_ahs.front().get();
    p.wr.wr.ud.remote_qpn = v.peer_qpns.front();
    p.wr.wr.ud.remote_qkey = kUdQkey;
  }
  const bool may_inline = bytes <= v.max_inline;
  switch (v.spec.operation) {
    case Operation::write:
      p.wr.opcode = writes_with_immediate(v.spec) ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
      p.wr.imm_data = htonl(kImmediateData);
      p.base_flags = may_inline ? IBV_SEND_INLINE : 0;
      break;
    case Operation::send:
      p.wr.opcode = IBV_WR_SEND;
      p.base_flags = may_inline ? IBV_SEND_INLINE : 0;
      break;
    case Operation::read:
      p.wr.opcode = IBV_WR_RDMA_READ;
      break;
    case Operation::atomic:
      // The old value comes back into our buffer; the operands are fixed,
      // since the benchmark times the operation, not what it computes.
      const bool add = v.spec.atomic == AtomicOp::fetch_and_add;
      p.wr.opcode = add ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
      p.wr.wr.atomic.remote_addr = v.remote.address;
      p.wr.wr.atomic.rkey = v.remote.rkey;
      p.wr.wr.atomic.compare_add = add ? 1 : 0;
      p.wr.wr.atomic.swap = 1;
      break;
  }
  return p;
}

PreparedReceive prepare_receive(const LoopView& v) {
  PreparedReceive p;
  ibv_sge payload{reinterpret_cast<std::uint64_t>(v.exposed_buffer.data()),
                  static_cast<std::uint32_t>(largest_size(v.spec)), v.exposed_mr->lkey};
  if (v.spec.qp_type == QpType::ud) {
    p.sges = {ibv_sge{reinterpret_cast<std::uint64_t>(v.grh_buffer.data()), kUdGrhBytes, v.grh_mr->lkey},
              payload};
    p.wr.num_sge = 2;
    p.header_bytes = kUdGrhBytes;
  } else {
    p.sges[0] = payload;
    p.wr.num_sge = 1;
  }
  return p;
}

ReceiveQueues receive_queues(const LoopView& v) {
  std::vector<ibv_qp*> qps;
  for (const auto& qp : v.qps) qps.push_back(qp.get());
  return ReceiveQueues(std::move(qps), v.srq.get());
}

void fill_receives(const LoopView& v) {
  auto receive = prepare_receive(v);
  receive.wr.sg_list = receive.sges.data();
  const ReceiveQueues queues = receive_queues(v);
  ibv_recv_wr* bad = nullptr;
  if (queues.shared()) {
    // A shared receive is no QP's until one consumes it: the tag says nothing.
    for (std::uint32_t i = 0; i < v.shared_receive_depth; ++i)
      if (int rc = queues.post(0, receive.wr, bad); rc != 0)
        throw_system_error("ibv_post_srq_recv", rc,
                           "--use-srq's depth may exceed the shared receive queue");
    return;
  }
  for (std::size_t q = 0; q < queues.size(); ++q)
    for (std::uint32_t i = 0; i < v.receive_queue_depth; ++i)
      if (int rc = queues.post(q, receive.wr, bad); rc != 0)
        throw_system_error("ibv_post_recv", rc, "-r/--rx-depth may exceed the receive queue");
}

void post_one_receive(const LoopView& v, std::size_t lane) {
  auto receive = prepare_receive(v);
  receive.wr.sg_list = receive.sges.data();
  tag_receive(receive.wr, lane);
  ibv_recv_wr* bad = nullptr;
  if (int rc = post_receive(v.qps.at(lane).get(), v.srq.get(), &receive.wr, &bad); rc != 0)
    throw_system_error(v.srq ? "ibv_post_srq_recv" : "ibv_post_recv", rc);
}

}  // namespace rdmabench::detail
