#pragma once
// What a timed loop reads of the run, and nothing it could change: the
// role, the agreed spec, the size being run, the pacing, the peer (for the
// watchdog's liveness checks and barriers) and the verbs objects of the
// Connection. The engine makes one per size; the loops take it by const
// reference, so no loop can reconfigure the run under another.

#include <cstddef>
#include <optional>
#include <vector>

#include "rdmabench/control/bootstrap.hpp"
#include "rdmabench/control/role.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/pacing/pacing.hpp"
#include "rdmabench/verbs/connection.hpp"

namespace rdmabench::detail {

struct LoopView {
  Role role;
  const TestSpec& spec;
  std::size_t size_index;               ///< which of spec.sizes is being run
  const std::optional<Pacing>& pacing;  ///< client, --rate: the open loop's schedule
  Bootstrap& peer;                      ///< liveness and barriers; the loops send nothing else
  Milliseconds timeout;                 ///< the longest silence from the peer
  Milliseconds interval;                ///< bandwidth over time: each interval's length; 0: none

  // The Connection's objects, by their names there.
  const Transport& transport;
  const CompletionQueue& cq;       ///< our sends, writes and reads
  const CompletionQueue& recv_cq;  ///< our posted receives
  const SharedReceiveQueue& srq;   ///< --use-srq: where every QP's receives are posted; else null
  const std::vector<QueuePair>& qps;
  const std::vector<AddressHandle>& peer_ahs;
  const std::vector<std::uint32_t>& peer_qpns;
  const Buffer& local_buffer;
  const Buffer& exposed_buffer;
  const MemoryRegion& local_mr;
  const MemoryRegion& exposed_mr;
  const std::vector<std::byte>& grh_buffer;
  const MemoryRegion& grh_mr;
  const LoadQueues& load;
  const RemoteBuffer& remote;
  std::uint32_t send_queue_depth;
  std::uint32_t receive_queue_depth;
  std::uint32_t shared_receive_depth;  ///< --use-srq: receives the SRQ keeps posted; else 0
  std::uint32_t max_inline;

  /// Untimed messages before this size.
  std::uint32_t warmup() const { return warmup_for_size(spec, size_index); }
};

/// The view of `connection` for size `size_index` of `spec`.
inline LoopView view_of(Role role, const TestSpec& spec, std::size_t size_index,
                        const std::optional<Pacing>& pacing, Bootstrap& peer, Milliseconds timeout,
                        Milliseconds interval, const Connection& c) {
  return LoopView{role,           spec,         size_index,          pacing,      peer,        timeout,
                  interval,
                  c.transport,    c.cq,         c.recv_cq,           c.srq,       c.qps,       c.peer_ahs,
                  c.peer_qpns,    c.local_buffer, c.exposed_buffer,  c.local_mr,  c.exposed_mr, c.grh_buffer,
                  c.grh_mr,       c.load,       c.remote,            c.plan.send_queue_depth,
                  c.plan.receive_queue_depth,   c.plan.shared_receive_depth, c.max_inline};
}

}  // namespace rdmabench::detail
