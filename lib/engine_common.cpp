#include <arpa/inet.h>
#include <fmt/format.h>

#include <cstring>

#include "engine_internal.hpp"
#include "latency_recorders.hpp"

namespace rdmabench::detail {

namespace {
/// What --write-with-imm writes carry ("RDMB"); the target checks nothing
/// but the completion's arrival and length.
constexpr std::uint32_t kImmediateData = 0x52444D42;
}  // namespace

PreparedOperation prepare_operation(const Session& s, std::uint64_t bytes) {
  PreparedOperation p;
  p.sge.addr = reinterpret_cast<std::uint64_t>(s.local_buffer.data());
  p.sge.length = static_cast<std::uint32_t>(bytes);
  p.sge.lkey = s.local_mr->lkey;
  p.wr.num_sge = 1;
  p.wr.wr.rdma.remote_addr = s.remote.address;
  p.wr.wr.rdma.rkey = s.remote.rkey;
  if (s.spec.qp_type == QpType::ud) {
    // A datagram names its destination in every request (the union's other half).
    p.wr.wr.ud.ah = s.peer_ahs.front().get();
    p.wr.wr.ud.remote_qpn = s.peer_qpns.front();
    p.wr.wr.ud.remote_qkey = kUdQkey;
  }
  const bool may_inline = bytes <= s.max_inline;
  switch (s.spec.operation) {
    case Operation::write:
      p.wr.opcode = s.spec.write_with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
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
      const bool add = s.spec.atomic == AtomicOp::fetch_and_add;
      p.wr.opcode = add ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
      p.wr.wr.atomic.remote_addr = s.remote.address;
      p.wr.wr.atomic.rkey = s.remote.rkey;
      p.wr.wr.atomic.compare_add = add ? 1 : 0;
      p.wr.wr.atomic.swap = 1;
      break;
  }
  return p;
}

void explain_receive_shortage(const Session& s, Watchdog& dog) {
  if (!uses_receives(s.spec) || retries_receiver_not_ready(s.transport.kind)) return;
  dog.set_failure_hint(fmt::format(
      "{} has no receiver-not-ready retry: a send that finds no receive posted ends the "
      "connection, and a receiver that also sends (-b) or serves many QPs can fall behind; "
      "raise -r/--rx-depth (now {}) on both sides, e.g. -r 4096",
      to_string(s.transport.kind), s.receive_queue_depth));
}

SizeResult result_header(const Session& s, std::uint64_t bytes) {
  SizeResult r;
  r.bytes = bytes;
  r.iterations = s.spec.iterations;
  r.warmup = s.spec.warmup;
  return r;
}

SizeResult measure(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  // Writes with immediate data behave as sends do for the target: it reaps
  // a completion per message instead of polling memory.
  const bool send = uses_receives(s.spec);
  if (s.spec.measurement == Measurement::bandwidth) {
    if (send && s.role == Role::server && !s.spec.bidirectional)
      return s.spec.qp_type == QpType::rc ? measure_receive_bandwidth(s, bytes, clock)
                                          : measure_unreliable_receive(s, bytes, clock);
    return measure_bandwidth(s, bytes, clock);
  }
  if (send) return measure_send_latency(s, bytes, clock);

  if (s.spec.operation == Operation::write) return measure_write_latency(s, bytes, clock);
  return measure_round_trip_latency(s, bytes, clock);  // reads and atomics
}

PreparedReceive prepare_receive(const Session& s) {
  PreparedReceive p;
  ibv_sge payload{reinterpret_cast<std::uint64_t>(s.exposed_buffer.data()),
                  static_cast<std::uint32_t>(largest_size(s.spec)), s.exposed_mr->lkey};
  if (s.spec.qp_type == QpType::ud) {
    p.sges = {ibv_sge{reinterpret_cast<std::uint64_t>(s.grh_buffer.data()), kUdGrhBytes, s.grh_mr->lkey},
              payload};
    p.wr.num_sge = 2;
    p.header_bytes = kUdGrhBytes;
  } else {
    p.sges[0] = payload;
    p.wr.num_sge = 1;
  }
  return p;
}

void post_receives(Session& s, std::uint32_t count) {
  auto receive = prepare_receive(s);
  receive.wr.sg_list = receive.sges.data();
  ibv_recv_wr* bad = nullptr;
  for (auto& qp : s.qps)
    for (std::uint32_t i = 0; i < count; ++i)
      if (int rc = ibv_post_recv(qp.get(), &receive.wr, &bad); rc != 0)
        throw_system_error("ibv_post_recv", rc, "-r/--rx-depth may exceed the receive queue");
}

void check_received_length(std::uint32_t byte_len, std::uint64_t bytes, std::uint32_t header_bytes) {
  if (byte_len == bytes + header_bytes) [[likely]]
    return;
  throw Error(fmt::format("received a {}-byte message where {} bytes were expected{}",
                          byte_len >= header_bytes ? byte_len - header_bytes : byte_len, bytes,
                          header_bytes ? " (after the 40-byte GRH)" : ""));
}

bool reap_receive_or_marker(ibv_cq* cq, std::uint64_t bytes, std::uint32_t header_bytes,
                            Watchdog& dog, std::uint64_t progress) {
  ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(progress);
  if (n < 0 || wc.status != IBV_WC_SUCCESS) [[unlikely]]
    dog.completion_failed(wc, n);
  if (wc.byte_len == header_bytes) return true;
  check_received_length(wc.byte_len, bytes, header_bytes);
  return false;
}

void reap_receive(ibv_cq* cq, std::uint64_t bytes, std::uint32_t header_bytes, Watchdog& dog,
                  std::uint64_t progress) {
  if (reap_receive_or_marker(cq, bytes, header_bytes, dog, progress)) [[unlikely]]
    check_received_length(header_bytes, bytes, header_bytes);  // a marker where none belongs
}

SizeResult histogram_result(SizeResult r, const Histogram& histogram, double ticks_per_us,
                            double divisor) {
  require(histogram.count() > 0,
          "the -D window held no complete round trip; lengthen -D");
  r.latency = histogram.summarize(ticks_per_us * divisor);
  r.iterations = histogram.count();
  r.warmup = 0;
  r.histogram_relative_error = histogram.relative_error();
  return r;
}

std::vector<double> interval_samples(const std::vector<std::uint64_t>& stamps, std::size_t count,
                                     double ticks_per_us, double divisor) {
  std::vector<double> samples;
  samples.reserve(count);
  for (std::size_t k = 0; k < count; ++k)
    samples.push_back(static_cast<double>(stamps[k + 1] - stamps[k]) / ticks_per_us / divisor);
  return samples;
}

SizeResult ping_pong_result(const Session& s, std::uint64_t bytes,
                            const std::vector<std::uint64_t>& stamps, const ClockInfo& clock) {
  SizeResult r = result_header(s, bytes);
  const std::size_t intervals = s.role == Role::client ? s.spec.iterations : s.spec.iterations - 1;
  r.latency_samples_us = interval_samples(stamps, intervals, clock.ticks_per_us, 2.0);
  if (!r.latency_samples_us.empty()) r.latency = summarize_latency(r.latency_samples_us);
  return r;
}

bool try_reap_one(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc;
  const int n = ibv_poll_cq(cq, 1, &wc);
  if (n < 0 || (n == 1 && wc.status != IBV_WC_SUCCESS)) dog.completion_failed(wc, n);
  return n == 1;
}

void reap_one(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(0);  // no progress until it arrives
  if (n < 0 || wc.status != IBV_WC_SUCCESS) dog.completion_failed(wc, n);
}

}  // namespace rdmabench::detail
