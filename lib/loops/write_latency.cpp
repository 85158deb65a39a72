// Write latency: ping-pong. The client writes a message whose last byte
// carries an iteration tag; the server spins on that byte, then writes back.
// A sample is the time between two consecutive posts (one full round trip,
// everything included), halved for one-way latency as perftest does. The
// last message carries kFinalTag, which tells the server (who, in a -D run,
// does not know the count) to answer once more and stop.
#include <cstring>

#include "loops/loop_kit.hpp"
#include "loops/loops.hpp"
#include "loops/latency_recorders.hpp"

namespace rdmabench::detail {

namespace {

constexpr std::uint8_t kFinalTag = 255;

/// 1..254, never 0 or kFinalTag: the target byte is zeroed before each size,
/// and two consecutive iterations never carry the same tag.
inline std::uint8_t tag_of(std::uint64_t i) { return static_cast<std::uint8_t>(i % 254 + 1); }

struct LatencyLoop {
  ibv_qp* qp;
  ibv_cq* cq;
  PreparedOperation write;
  volatile std::uint8_t* incoming;  ///< last byte of our target buffer
  std::uint8_t* outgoing;           ///< last byte of our source buffer
  bool initiator;
};

/// One stamp per message through `recorder`; nothing else in the loop.
template <typename Clock, typename Recorder>
void write_latency_loop(const LatencyLoop& L, Recorder& recorder, Watchdog& dog) {
  // Both sides spin on memory; their own completions come soon after the
  // post, and are reaped spinning too (-e does not apply here).
  CompletionWait busy(nullptr);
  ibv_send_wr wr = L.write.wr;
  ibv_sge sge = L.write.sge;
  wr.sg_list = &sge;
  ibv_send_wr* bad = nullptr;
  bool signal_pending = false;
  for (std::uint64_t i = 0;; ++i) {
    std::uint8_t tag = tag_of(i);
    if (!L.initiator) {
      std::uint8_t seen;
      while ((seen = *L.incoming) != tag && seen != kFinalTag) dog.idle(i);
      tag = seen;  // the final tag is echoed, and ends the loop here too
    }
    const std::uint64_t now = Clock::now();
    if (L.initiator && recorder.last(i, now)) tag = kFinalTag;
    recorder.record(i, now);
    *L.outgoing = tag;
    const bool final = tag == kFinalTag;
    const bool signaled = i % kLatencySignalEvery == kLatencySignalEvery - 1 || final;
    if (signaled) {
      if (signal_pending) reap_one(L.cq, busy, dog);
      signal_pending = true;
    }
    wr.send_flags = L.write.base_flags | (signaled ? unsigned{IBV_SEND_SIGNALED} : 0u);
    if (int rc = ibv_post_send(L.qp, &wr, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    // While the peer's answer is on its way: reap ours now if it is there
    // (siw writes it during the post), so the next turn need not.
    if (signaled && try_reap_one(L.cq, dog)) signal_pending = false;
    if (L.initiator)
      while (*L.incoming != tag) dog.idle(i);
    if (final) break;
  }
  if (L.initiator) recorder.finish(Clock::now());
  if (signal_pending) reap_one(L.cq, busy, dog);
}

}  // namespace

void reset_latency_target(const LoopView& v, std::uint64_t bytes) {
  *reinterpret_cast<volatile std::uint8_t*>(v.exposed_buffer.data() + bytes - 1) = 0;
}

SizeResult measure_write_latency(const LoopView& v, std::uint64_t bytes, const ClockInfo& clock) {
  const LatencyLoop loop{v.qps.front().get(),
                         v.cq.get(),
                         prepare_operation(v, bytes),
                         reinterpret_cast<volatile std::uint8_t*>(v.exposed_buffer.data() + bytes - 1),
                         reinterpret_cast<std::uint8_t*>(v.local_buffer.data() + bytes - 1),
                         v.role == Role::client};
  Watchdog dog(v.peer, v.timeout, "the peer's write");
  return time_ping_pong(v, bytes, clock, [&]<typename Clock>(auto& recorder) {
    write_latency_loop<Clock>(loop, recorder, dog);
  });
}

}  // namespace rdmabench::detail
