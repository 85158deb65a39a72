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
  p.wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
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
  if (s.spec.measurement == Measurement::bandwidth) return measure_bandwidth(s, bytes, clock);
  if (s.spec.operation == Operation::read) return measure_read_latency(s, bytes, clock);
  return measure_write_latency(s, bytes, clock);
}

std::vector<double> interval_samples(const std::vector<std::uint64_t>& stamps, std::size_t count,
                                     double ticks_per_us, double divisor) {
  std::vector<double> samples;
  samples.reserve(count);
  for (std::size_t k = 0; k < count; ++k)
    samples.push_back(static_cast<double>(stamps[k + 1] - stamps[k]) / ticks_per_us / divisor);
  return samples;
}

void reap_one(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) dog.idle(0);  // no progress until it arrives
  if (n < 0 || wc.status != IBV_WC_SUCCESS) dog.completion_failed(wc, n);
}

}  // namespace rdmabench::detail
