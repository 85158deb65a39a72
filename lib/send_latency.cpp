// Send latency: ping-pong of two-sided sends. The client sends, then spins
// on its receive queue for the server's reply; the server does the mirror
// image. Each side reposts the receive it consumed. A sample is the time
// between two consecutive posts, halved for one-way latency as perftest does.
#include "engine_internal.hpp"
#include "session_internal.hpp"

namespace rdmabench::detail {

namespace {

struct SendLatencyLoop {
  ibv_qp* qp;
  ibv_cq* send_cq;
  ibv_cq* recv_cq;
  PreparedOperation send;
  PreparedReceive receive;
  std::uint64_t bytes;
  std::uint64_t warmup;
  std::uint64_t total;
  bool initiator;
};

template <typename Clock>
void send_latency_loop(const SendLatencyLoop& L, std::uint64_t* stamps, Watchdog& dog) {
  ibv_send_wr wr = L.send.wr;
  ibv_sge sge = L.send.sge;
  wr.sg_list = &sge;
  ibv_recv_wr rwr = L.receive.wr;
  ibv_sge rsge = L.receive.sge;
  rwr.sg_list = &rsge;
  ibv_send_wr* bad = nullptr;
  ibv_recv_wr* bad_receive = nullptr;
  bool signal_pending = false;
  for (std::uint64_t i = 0; i < L.total; ++i) {
    if (!L.initiator) reap_receive(L.recv_cq, L.bytes, dog, i);
    const std::uint64_t now = Clock::now();
    if (i >= L.warmup) stamps[i - L.warmup] = now;
    if (!L.initiator)
      if (int rc = ibv_post_recv(L.qp, &rwr, &bad_receive); rc != 0) [[unlikely]]
        dog.post_failed(rc);
    const bool signaled = i % kLatencySignalEvery == kLatencySignalEvery - 1 || i + 1 == L.total;
    if (signaled) {
      if (signal_pending) reap_one(L.send_cq, dog);
      signal_pending = true;
    }
    wr.send_flags = L.send.base_flags | (signaled ? unsigned{IBV_SEND_SIGNALED} : 0u);
    if (int rc = ibv_post_send(L.qp, &wr, &bad); rc != 0) [[unlikely]]
      dog.post_failed(rc);
    if (L.initiator) {
      reap_receive(L.recv_cq, L.bytes, dog, i);
      if (int rc = ibv_post_recv(L.qp, &rwr, &bad_receive); rc != 0) [[unlikely]]
        dog.post_failed(rc);
    }
  }
  if (L.initiator) stamps[L.total - L.warmup] = Clock::now();
  if (signal_pending) reap_one(L.send_cq, dog);
}

}  // namespace

SizeResult measure_send_latency(Session& s, std::uint64_t bytes, const ClockInfo& clock) {
  const SendLatencyLoop loop{s.qp.get(),         s.cq.get(),   s.recv_cq.get(),
                             prepare_operation(s, bytes), prepare_receive(s), bytes,
                             s.spec.warmup,      s.spec.warmup + s.spec.iterations,
                             s.role == Role::client};
  std::vector<std::uint64_t> stamps(s.spec.iterations + 1);  // allocated before timing
  Watchdog dog(s.control, s.timeout, "the peer's send");
  with_clock(clock, [&]<typename Clock>() { send_latency_loop<Clock>(loop, stamps.data(), dog); });

  return ping_pong_result(s, bytes, stamps, clock);
}

}  // namespace rdmabench::detail
