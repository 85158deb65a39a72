// Joining a multicast group through rdma_cm, attaching UD queue pairs to
// it, and leaving it.
#include "rdmabench/verbs/multicast_membership.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <infiniband/ib.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <cstring>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/verbs/multicast_group.hpp"

namespace rdmabench {

namespace {

/// An address rdma_cm takes: on Ethernet the IPv4 address an IPv4-mapped
/// GID holds, on InfiniBand the GID itself (AF_IB).
sockaddr_storage cm_address(const Gid& gid, LinkLayer link_layer) {
  sockaddr_storage storage{};
  if (link_layer == LinkLayer::ethernet) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = ipv4_of(gid);
  } else {
    static_assert(sizeof(sockaddr_ib) <= sizeof(sockaddr_storage));
    auto* ib = reinterpret_cast<sockaddr_ib*>(&storage);
    ib->sib_family = AF_IB;
    ib->sib_pkey = htons(0xffff);
    std::memcpy(&ib->sib_addr, gid.data(), gid.size());
  }
  return storage;
}

/// The next event on `channel` within `timeout`, or an Error saying the
/// join went unanswered.
rdma_cm_event* next_event(rdma_event_channel* channel, std::chrono::milliseconds timeout, const std::string& what) {
  pollfd fd{channel->fd, POLLIN, 0};
  int n = 0;
  do {
    n = ::poll(&fd, 1, static_cast<int>(timeout.count()));
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw_system_error("poll (rdma_cm, " + what + ")", errno);
  if (n == 0)
    throw Error(fmt::format("{}: no answer within {} ms", what, timeout.count()),
                "on InfiniBand the subnet manager answers joins: is one running? Raise --timeout if "
                "it is merely slow");
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(channel, &event) != 0) throw_system_error("rdma_get_cm_event (" + what + ")", errno);
  return event;
}

}  // namespace

MulticastMembership::MulticastMembership(const Gid& group, const Gid& local, LinkLayer link_layer,
                                         const std::string& device, std::chrono::milliseconds timeout) {
  const std::string what = fmt::format("joining the multicast group {} on {}", format_gid(group), device);
  events_.reset(rdma_create_event_channel());
  if (!events_) throw_system_error("rdma_create_event_channel (" + what + ")", errno);
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(events_.get(), &id, nullptr, RDMA_PS_UDP) != 0)
    throw_system_error("rdma_create_id (" + what + ")", errno);
  id_.reset(id);

  auto bound = cm_address(local, link_layer);
  if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&bound)) != 0)
    throw_system_error(fmt::format("rdma_bind_addr({}) ({})", format_gid(local), what), errno,
                       "rdma_cm joins a group from an address of the port: does its network interface "
                       "hold that address?");
  // rdma_cm picked the device by the address: it must be ours, or the
  // queue pairs could not be attached.
  const char* bound_device = id->verbs ? ibv_get_device_name(id->verbs->device) : nullptr;
  require(bound_device && device == bound_device,
          fmt::format("{}: rdma_cm binds the address {} to {}, not to {}", what, format_gid(local),
                      bound_device ? bound_device : "no RDMA device", device),
          "give -d the device of that address, or -x a GID of this device's own address");

  auto joined = cm_address(group, link_layer);
  if (rdma_join_multicast(id, reinterpret_cast<sockaddr*>(&joined), nullptr) != 0)
    throw_system_error("rdma_join_multicast (" + what + ")", errno);
  rdma_cm_event* event = next_event(events_.get(), timeout, what);
  const rdma_cm_event_type type = event->event;
  const int status = event->status;
  if (type == RDMA_CM_EVENT_MULTICAST_JOIN) {
    std::copy(std::begin(event->param.ud.ah_attr.grh.dgid.raw), std::end(event->param.ud.ah_attr.grh.dgid.raw),
              group_.begin());
    lid_ = event->param.ud.ah_attr.dlid;
  }
  rdma_ack_cm_event(event);
  if (type != RDMA_CM_EVENT_MULTICAST_JOIN)
    throw Error(fmt::format("{}: rdma_cm answered {} ({})", what, rdma_event_str(type),
                            status < 0 ? std::strerror(-status) : fmt::format("status {}", status)),
                "the fabric refused the group: on InfiniBand the subnet manager decides; on RoCE the "
                "group must be an IPv4 multicast address");
  require(is_multicast_gid(group_),
          fmt::format("{}: rdma_cm answered with {}, which is no multicast GID", what, format_gid(group_)));
}

void MulticastMembership::attach(ibv_qp* qp) {
  if (int rc = ibv_attach_mcast(qp, reinterpret_cast<const ibv_gid*>(group_.data()), lid_); rc != 0)
    throw_system_error(fmt::format("ibv_attach_mcast (queue pair {} of {} to the group {})", attached_.size() + 1,
                                   qp->context->device->name, format_gid(group_)),
                       rc, "lower -g/--mcg: the device attaches only so many queue pairs to one group");
  attached_.push_back(qp);
}

MulticastMembership::~MulticastMembership() {
  // While the queue pairs still exist (the Connection destroys them after
  // this); destroying the id then leaves the group (and its IGMP membership).
  for (ibv_qp* qp : attached_) ibv_detach_mcast(qp, reinterpret_cast<const ibv_gid*>(group_.data()), lid_);
}

}  // namespace rdmabench
