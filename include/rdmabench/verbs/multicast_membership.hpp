#pragma once
/// @file
/// A server's membership of one multicast group: joined through rdma_cm,
/// which does what the fabric needs (on RoCEv2 the IGMP membership that
/// switches and the receiving host's IP stack go by; on InfiniBand the
/// subnet administrator's MCMemberRecord, which gives the group its LID),
/// with the receiving UD queue pairs attached to it. Leaving is the
/// destructor's: it detaches the queue pairs, then leaves the group.

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "rdmabench/verbs/resources.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench {

class MulticastMembership {
 public:
  /// Joins `group` (a multicast GID in the form multicast_gid_for gives
  /// for `link_layer`) through rdma_cm, bound to the port address `local`
  /// (on Ethernet an IPv4-mapped GID, whose address rdma_cm binds; on
  /// InfiniBand the port's GID), and waits at most `timeout` for the
  /// fabric's answer. Throws an Error naming the group and the reason:
  /// the join refused or unanswered, or the address on a device other
  /// than `device`.
  MulticastMembership(const Gid& group, const Gid& local, LinkLayer link_layer, const std::string& device,
                      std::chrono::milliseconds timeout);
  ~MulticastMembership();
  MulticastMembership(const MulticastMembership&) = delete;
  MulticastMembership& operator=(const MulticastMembership&) = delete;

  /// Attaches `qp` (a UD queue pair on the same device), so that it
  /// receives a copy of every message sent to the group.
  void attach(ibv_qp* qp);

  /// The group as the fabric carries it (the join's answer): what a
  /// sender's address handle names.
  const Gid& group() const { return group_; }
  /// Its multicast LID on InfiniBand; 0 on RoCE, which has no LIDs.
  std::uint16_t lid() const { return lid_; }

 private:
  EventChannel events_;
  CmId id_;
  Gid group_{};
  std::uint16_t lid_ = 0;
  std::vector<ibv_qp*> attached_;  ///< not owned: the Connection's, destroyed after this
};

}  // namespace rdmabench
