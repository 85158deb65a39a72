// Write latency: ping-pong. The client writes a message whose last byte
// carries an iteration tag; the server spins on that byte, then writes back.
// A sample is the time between two consecutive posts (one full round trip,
// everything included), halved for one-way latency as perftest does.
#include <cstring>

#include "engine_internal.hpp"
#include "session_internal.hpp"

namespace rdmabench::detail {

namespace {

/// 1..255, never 0: the target byte is zeroed before each size, and two
/// consecutive iterations never carry the same tag.
inline std::uint8_t tag_of(std::uint64_t i) { return static_cast<std::uint8_t>(i % 255 + 1); }

struct LatencyLoop {
  ibv_qp* qp;
  ibv_cq* cq;
  PreparedOperation write;
  volatile std::uint8_t* incoming;  ///< last byte of our target buffer
  std::uint8_t* outgoing;           ///< last byte of our source buffer
  std::uint64_t warmup;
  std::uint64_t total;              ///< warmup + timed iterations
  bool initiator;
};

/// Stamps: one per timed iteration plus, for the initiator, the end of the
/// last round trip. Nothing else is recorded in the loop.
template <typename Clock>
void write_latency_loop(const LatencyLoop& L, std::uint64_t* stamps, Watchdog& dog) {
  ibv_send_wr wr = L.write.wr;
  ibv_sge sge = L.write.sge;
  wr.sg_list = &sge;
  ibv_send_wr* bad = nullptr;
  bool signal_pending = false;
  for (std::uint64_t i = 0; i < L.total; ++i) {
    const std::uint8_t tag = tag_of(i);
    if (!L.initiator)
      while (*L.incoming != tag) dog.idle(i);
    const std::uint64_t now = Clock::now();
    if (i >= L.warmup) stamps[i - L.warmup] = now;
    *L.outgoing = tag;
    const bool signaled = i % kLatencySignalEvery == kLatencySignalEvery - 1 || i + 1 == L.total;
    if (signaled) {
      if (signal_pending) reap_one(L.cq, dog);
      signal_pending = true;
    }
    wr.send_flags = L.write.base_flags | (signaled ? unsigned{IBV_SEND_SIGNALED} : 0u);
    if (int rc = ibv_post_send(L.qp, &wr, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    if (L.initiator)
      while (*L.incoming != tag) dog.idle(i);
  }
  if (L.initiator) stamps[L.total - L.warmup] = Clock::now();
  if (signal_pending) reap_one(L.cq, dog);
}

}  // namespace

void reset_latency_target(Session& s, std::uint64_t bytes) {
  *reinterpret_cast<volatile std::uint8_t*>(s.exposed_buffer.data() + bytes - 1) = 0;
}

SizeResult measure_write_latency(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  LatencyLoop loop{s.qp.get(),
                   s.cq.get(),
                   prepare_operation(s, bytes),
                   reinterpret_cast<volatile std::uint8_t*>(s.exposed_buffer.data() + bytes - 1),
                   reinterpret_cast<std::uint8_t*>(s.local_buffer.data() + bytes - 1),
                   s.spec.warmup,
                   s.spec.warmup + s.spec.iterations,
                   s.role == Role::client};
  std::vector<std::uint64_t> stamps(s.spec.iterations + 1);  // allocated before timing
  Watchdog dog(s.control, s.timeout, "the peer's write");
  with_clock(clock, [&]<typename Clock>() { write_latency_loop<Clock>(loop, stamps.data(), dog); });

  return ping_pong_result(s, bytes, stamps, clock);
}

}  // namespace rdmabench::detail
