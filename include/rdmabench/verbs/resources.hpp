#pragma once
/// @file
/// Move-only owners of verbs and rdma_cm objects. Each releases exactly the
/// object it owns; the order in which a set of them is torn down is written
/// once, in rdmabench::Session.

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <memory>

namespace rdmabench {

namespace detail {
// Destroy calls can fail (EBUSY when a dependant still lives); at teardown
// there is nobody to report to, and Session's order prevents that case.
struct CloseContext { void operator()(ibv_context* p) const { ibv_close_device(p); } };
struct DeallocPd { void operator()(ibv_pd* p) const { ibv_dealloc_pd(p); } };
struct DestroyCq { void operator()(ibv_cq* p) const { ibv_destroy_cq(p); } };
struct DestroyQp { void operator()(ibv_qp* p) const { ibv_destroy_qp(p); } };
struct DestroySrq { void operator()(ibv_srq* p) const { ibv_destroy_srq(p); } };
struct DestroyAh { void operator()(ibv_ah* p) const { ibv_destroy_ah(p); } };
struct DeregMr { void operator()(ibv_mr* p) const { ibv_dereg_mr(p); } };
struct DestroyCompChannel { void operator()(ibv_comp_channel* p) const { ibv_destroy_comp_channel(p); } };
struct DestroyCmId { void operator()(rdma_cm_id* p) const { rdma_destroy_id(p); } };
struct DestroyEventChannel { void operator()(rdma_event_channel* p) const { rdma_destroy_event_channel(p); } };
struct FreeDeviceList { void operator()(ibv_device** p) const { ibv_free_device_list(p); } };
}  // namespace detail

using Context = std::unique_ptr<ibv_context, detail::CloseContext>;
using ProtectionDomain = std::unique_ptr<ibv_pd, detail::DeallocPd>;
using CompletionQueue = std::unique_ptr<ibv_cq, detail::DestroyCq>;
using QueuePair = std::unique_ptr<ibv_qp, detail::DestroyQp>;
using SharedReceiveQueue = std::unique_ptr<ibv_srq, detail::DestroySrq>;
using AddressHandle = std::unique_ptr<ibv_ah, detail::DestroyAh>;
using MemoryRegion = std::unique_ptr<ibv_mr, detail::DeregMr>;
using CmId = std::unique_ptr<rdma_cm_id, detail::DestroyCmId>;
using EventChannel = std::unique_ptr<rdma_event_channel, detail::DestroyEventChannel>;
using DeviceList = std::unique_ptr<ibv_device*, detail::FreeDeviceList>;

/// Where the peer's buffer is: a plain value that travels in the handshake.
struct RemoteBuffer {
  std::uint64_t address = 0;
  std::uint32_t rkey = 0;
  std::uint64_t length = 0;
};

}  // namespace rdmabench
