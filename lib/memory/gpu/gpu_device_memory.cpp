#include "memory/gpu/gpu_device_memory.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/version.hpp"

namespace rdmabench::gpu {

namespace {

/// The runtime exports host-page-aligned ranges; the region starts `offset`
/// bytes in and keeps the device address as its iova, so that the peer
/// addresses it as it would through peer memory.
Attempt register_dmabuf(const GpuDeviceMemory& memory, ibv_pd* pd, const Buffer& buffer, int access) {
#ifndef RDMABENCH_HAVE_IBV_REG_DMABUF_MR
  (void)memory, (void)pd, (void)buffer, (void)access;
  return {{}, fmt::format("this build's rdma-core {} has no ibv_reg_dmabuf_mr (rdma-core 34 or later has); "
                          "rebuild against a newer rdma-core for dma-buf registration",
                          kRdmaCoreVersion)};
#else
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
  const std::uintptr_t start = address & ~(page - 1);
  const std::uint64_t offset = address - start;
  const DmabufExport exported = memory.export_dmabuf(start, round_up(buffer.size() + offset, page));
  if (!exported.failure.empty()) return {{}, exported.failure};
  MemoryRegion mr(ibv_reg_dmabuf_mr(pd, offset, buffer.size(), address, exported.fd, access));
  const int error = errno;
  ::close(exported.fd);  // the region holds its own reference to the dma-buf
  if (!mr) return {{}, fmt::format("ibv_reg_dmabuf_mr failed: {}", std::strerror(error))};
  return {std::move(mr), {}};
#endif
}

/// Peer memory: the NIC driver asks the GPU driver's peer-memory client to
/// pin the pages behind the device pointer; without one, the kernel sees no
/// such user memory.
Attempt register_peer_memory(ibv_pd* pd, const Buffer& buffer, int access) {
  MemoryRegion mr(ibv_reg_mr(pd, buffer.data(), buffer.size(), access));
  if (!mr) return {{}, fmt::format("ibv_reg_mr on the device pointer failed: {}", std::strerror(errno))};
  return {std::move(mr), {}};
}

}  // namespace

std::size_t round_up(std::size_t n, std::size_t to) { return (std::max<std::size_t>(n, 1) + to - 1) / to * to; }

std::string sysfs_pci_address(const char* bus_id) {
  unsigned domain = 0, bus = 0, slot = 0, function = 0;
  if (std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &slot, &function) != 4) return {};
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, slot, function);
}

GpuDeviceMemory::GpuDeviceMemory(MemoryChoice choice, const RegistrationHints& hints, std::string description,
                                 std::string pci_address)
    : choice_(std::move(choice)),
      hints_(hints),
      description_(std::move(description)),
      pci_address_(std::move(pci_address)),
      gdr_(choice_.gdr) {}

Registration GpuDeviceMemory::register_buffer(ibv_pd* pd, const Buffer& buffer, int access) {
  return register_gpu_memory(
      gdr_, name(), hints_, [&] { return register_dmabuf(*this, pd, buffer, access); },
      [&] { return register_peer_memory(pd, buffer, access); });
}

void GpuDeviceMemory::copy_in(const Buffer& buffer, std::span<const std::byte> from) {
  require(from.size() <= buffer.size(), "copy into a buffer smaller than the data");
  copy_to_device(buffer.data(), from.data(), from.size());
}

void GpuDeviceMemory::copy_out(const Buffer& buffer, std::span<std::byte> to) {
  require(to.size() <= buffer.size(), "copy out of a buffer smaller than the data");
  copy_from_device(to.data(), buffer.data(), to.size());
}

}  // namespace rdmabench::gpu
