#include <fmt/format.h>

#include <cstring>

#include "engine_internal.hpp"

namespace rdmabench::detail {

PreparedWrite prepare_write(const Session& s, std::uint64_t bytes) {
  PreparedWrite p;
  p.sge.addr = reinterpret_cast<std::uint64_t>(s.send_buffer.data());
  p.sge.length = static_cast<std::uint32_t>(bytes);
  p.sge.lkey = s.send_mr->lkey;
  p.wr.opcode = IBV_WR_RDMA_WRITE;
  p.wr.num_sge = 1;
  p.wr.wr.rdma.remote_addr = s.remote.address;
  p.wr.wr.rdma.rkey = s.remote.rkey;
  p.base_flags = bytes <= s.max_inline ? IBV_SEND_INLINE : 0;
  return p;
}

void throw_post_error(int rc, const Session& s) {
  // ibv_post_send returns its error; errno is not set.
  throw Error(fmt::format("ibv_post_send failed on {}: {}", s.port.device, std::strerror(rc)),
              "the send queue overflowed or the QP left RTS");
}

void throw_completion_error(const ibv_wc& wc) {
  throw Error(fmt::format("completion with error: {} (status {}, vendor error 0x{:x}, wr_id {})",
                          ibv_wc_status_str(wc.status), static_cast<int>(wc.status), wc.vendor_err,
                          wc.wr_id),
              wc.status == IBV_WC_RETRY_EXC_ERR
                  ? "the peer stopped answering: it exited, or the path is down"
                  : "");
}

void reap_one(ibv_cq* cq, Watchdog& dog) {
  ibv_wc wc;
  for (;;) {
    const int n = ibv_poll_cq(cq, 1, &wc);
    if (n > 0) break;
    if (n < 0) throw Error("ibv_poll_cq failed");
    dog.idle(0);  // no progress until the completion arrives
  }
  if (wc.status != IBV_WC_SUCCESS) throw_completion_error(wc);
}

}  // namespace rdmabench::detail
