#include <fmt/format.h>

#include <cstring>

#include "engine_internal.hpp"

namespace rdmabench::detail {

PreparedOperation prepare_operation(const Session& s, std::uint64_t bytes) {
  PreparedOperation p;
  p.sge.addr = reinterpret_cast<std::uint64_t>(s.local_buffer.data());
  p.sge.length = static_cast<std::uint32_t>(bytes);
  p.sge.lkey = s.local_mr->lkey;
  const bool read = s.spec.operation == Operation::read;
  p.wr.opcode = read                                  ? IBV_WR_RDMA_READ
                : s.spec.operation == Operation::send ? IBV_WR_SEND
                                                      : IBV_WR_RDMA_WRITE;
  p.wr.num_sge = 1;
  p.wr.wr.rdma.remote_addr = s.remote.address;
  p.wr.wr.rdma.rkey = s.remote.rkey;
  p.base_flags = !read && bytes <= s.max_inline ? IBV_SEND_INLINE : 0;
  return p;
}

SizeResult result_header(const Session& s, std::uint64_t bytes) {
  SizeResult r;
  r.bytes = bytes;
  r.iterations = s.spec.iterations;
  r.warmup = s.spec.warmup;
  return r;
}

SizeResult measure(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  const bool send = s.spec.operation == Operation::send;
  if (s.spec.measurement == Measurement::bandwidth) {
    if (send && s.role == Role::server) return measure_receive_bandwidth(s, bytes, clock);
    return measure_bandwidth(s, bytes, clock);
  }
  if (send) return measure_send_latency(s, bytes, clock);
  if (s.spec.operation == Operation::read) return measure_read_latency(s, bytes, clock);
  return measure_write_latency(s, bytes, clock);
}

PreparedReceive prepare_receive(const Session& s) {
  PreparedReceive p;
  p.sge.addr = reinterpret_cast<std::uint64_t>(s.exposed_buffer.data());
  p.sge.length = static_cast<std::uint32_t>(largest_size(s.spec));
  p.sge.lkey = s.exposed_mr->lkey;
  p.wr.num_sge = 1;
  return p;
}

void post_receives(Session& s, std::uint32_t count) {
  auto receive = prepare_receive(s);
  receive.wr.sg_list = &receive.sge;
  ibv_recv_wr* bad = nullptr;
  for (std::uint32_t i = 0; i < count; ++i)
    if (int rc = ibv_post_recv(s.qp.get(), &receive.wr, &bad); rc != 0)
      throw_system_error("ibv_post_recv", rc, "-r/--rx-depth may exceed the receive queue");
}

void reap_receive(ibv_cq* cq, std::uint64_t bytes, Watchdog& dog, std::uint64_t progress) {
  ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(progress);
  if (n < 0 || wc.status != IBV_WC_SUCCESS) [[unlikely]]
    dog.completion_failed(wc, n);
  if (wc.byte_len != bytes) [[unlikely]]
    throw Error(fmt::format("received a {}-byte message where {} bytes were expected",
                            wc.byte_len, bytes));
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

void reap_one(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(0);  // no progress until it arrives
  if (n < 0 || wc.status != IBV_WC_SUCCESS) dog.completion_failed(wc, n);
}

}  // namespace rdmabench::detail
