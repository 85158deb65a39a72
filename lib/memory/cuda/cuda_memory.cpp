// The CUDA memory providers: device memory (cuda:N), registered for
// GPUDirect RDMA by dma-buf or peer memory, and pinned host memory
// (cuda-host:N), which the CPU and NIC reach like any host memory.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "memory/cuda_memory.hpp"
#include "memory/cuda/gpu_context.hpp"
#include "memory/cuda/gpu_registration.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/version.hpp"

namespace rdmabench::cuda {

namespace {

/// GPUDirect RDMA maps GPU memory in 64 KiB pages; whole pages keep a
/// buffer from sharing one with another allocation.
constexpr std::size_t kGpuPage = 64u << 10;

std::size_t round_up(std::size_t n, std::size_t to) { return (std::max<std::size_t>(n, 1) + to - 1) / to * to; }

CUdeviceptr device_pointer(const Buffer& buffer) { return reinterpret_cast<CUdeviceptr>(buffer.data()); }

/// cuMemGetHandleForAddressRange exports host-page-aligned ranges; the
/// region starts `offset` bytes in and keeps the device address as its iova,
/// so that the peer addresses it as it would through peer memory.
Attempt register_dmabuf(const GpuContext& gpu, ibv_pd* pd, const Buffer& buffer, int access) {
#ifndef RDMABENCH_HAVE_IBV_REG_DMABUF_MR
  (void)gpu, (void)pd, (void)buffer, (void)access;
  return {{}, fmt::format("this build's rdma-core {} has no ibv_reg_dmabuf_mr (rdma-core 34 or later has); "
                          "rebuild against a newer rdma-core for dma-buf registration",
                          kRdmaCoreVersion)};
#else
  const auto get_handle = gpu.api().mem_get_handle_for_address_range;
  if (!get_handle) return {{}, "the CUDA driver has no cuMemGetHandleForAddressRange (older than CUDA 11.7)"};
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
  const std::uintptr_t start = address & ~(page - 1);
  const std::uint64_t offset = address - start;
  int fd = -1;
  gpu.make_current();
  if (CUresult r = get_handle(&fd, start, round_up(buffer.size() + offset, page),
                              CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
      r != CUDA_SUCCESS)
    return {{}, gpu.driver().describe(r, "cuMemGetHandleForAddressRange")};
  MemoryRegion mr(ibv_reg_dmabuf_mr(pd, offset, buffer.size(), address, fd, access));
  const int error = errno;
  ::close(fd);  // the region holds its own reference to the dma-buf
  if (!mr) return {{}, fmt::format("ibv_reg_dmabuf_mr failed: {}", std::strerror(error))};
  return {std::move(mr), {}};
#endif
}

/// Peer memory: the NIC driver asks nvidia-peermem to pin the pages behind
/// the device pointer; without it, the kernel sees no such user memory.
Attempt register_peer_memory(ibv_pd* pd, const Buffer& buffer, int access) {
  MemoryRegion mr(ibv_reg_mr(pd, buffer.data(), buffer.size(), access));
  if (!mr) return {{}, fmt::format("ibv_reg_mr on the device pointer failed: {}", std::strerror(errno))};
  return {std::move(mr), {}};
}

class CudaDeviceMemory final : public MemoryProvider {
 public:
  CudaDeviceMemory(std::shared_ptr<const GpuContext> gpu, MemoryChoice choice)
      : gpu_(std::move(gpu)), choice_(std::move(choice)), gdr_(choice_.gdr) {}
  std::string name() const override { return choice_.name(); }
  std::string device_description() const override { return gpu_->description(); }
  std::string pci_address() const override { return gpu_->pci_address(); }
  bool cpu_accessible() const override { return false; }

  Buffer allocate(std::size_t bytes) override {
    const std::size_t length = round_up(bytes, kGpuPage);
    gpu_->make_current();
    CUdeviceptr pointer = 0;
    gpu_->driver().check(gpu_->api().mem_alloc(&pointer, length),
                         fmt::format("cuMemAlloc({} bytes on {})", length, name()).c_str());
    Buffer buffer(reinterpret_cast<void*>(pointer), length, [gpu = gpu_](void* data, std::size_t) {
      gpu->api().ctx_set_current(gpu->context());  // no throwing from a release
      gpu->api().mem_free(reinterpret_cast<CUdeviceptr>(data));
    });
    // GPUDirect RDMA needs the GPU's own copies to finish before a later
    // RDMA access to the same memory; SYNC_MEMOPS makes them so.
    const unsigned int sync = 1;
    gpu_->driver().check(gpu_->api().pointer_set_attribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, pointer),
                         "cuPointerSetAttribute(SYNC_MEMOPS)");
    gpu_->driver().check(gpu_->api().memset_d8(pointer, 0, length), "cuMemsetD8");
    return buffer;
  }

  Registration register_buffer(ibv_pd* pd, const Buffer& buffer, int access) override {
    return register_gpu_memory(
        gdr_, name(), [&] { return register_dmabuf(*gpu_, pd, buffer, access); },
        [&] { return register_peer_memory(pd, buffer, access); });
  }

  void copy_in(const Buffer& buffer, std::span<const std::byte> from) override {
    require(from.size() <= buffer.size(), "copy into a buffer smaller than the data");
    gpu_->make_current();
    gpu_->driver().check(gpu_->api().memcpy_htod(device_pointer(buffer), from.data(), from.size()),
                         "cuMemcpyHtoD");
  }

  void copy_out(const Buffer& buffer, std::span<std::byte> to) override {
    require(to.size() <= buffer.size(), "copy out of a buffer smaller than the data");
    gpu_->make_current();
    gpu_->driver().check(gpu_->api().memcpy_dtoh(to.data(), device_pointer(buffer), to.size()),
                         "cuMemcpyDtoH");
  }

 private:
  std::shared_ptr<const GpuContext> gpu_;
  MemoryChoice choice_;
  GdrMode gdr_;  ///< becomes the path that worked (see register_gpu_memory)
};

/// Page-locked host memory from the CUDA driver: what a GPU application
/// stages through; the NIC registers it like any host memory.
class CudaPinnedHostMemory final : public MemoryProvider {
 public:
  CudaPinnedHostMemory(std::shared_ptr<const GpuContext> gpu, MemoryChoice choice)
      : gpu_(std::move(gpu)), choice_(std::move(choice)) {}
  std::string name() const override { return choice_.name(); }
  std::string device_description() const override { return gpu_->description(); }
  std::string pci_address() const override { return gpu_->pci_address(); }

  Buffer allocate(std::size_t bytes) override {
    const std::size_t length = round_up(bytes, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
    gpu_->make_current();
    void* pointer = nullptr;
    gpu_->driver().check(gpu_->api().mem_alloc_host(&pointer, length),
                         fmt::format("cuMemAllocHost({} bytes for {})", length, name()).c_str());
    std::memset(pointer, 0, length);
    return Buffer(pointer, length, [gpu = gpu_](void* data, std::size_t) { gpu->api().mem_free_host(data); });
  }

 private:
  std::shared_ptr<const GpuContext> gpu_;
  MemoryChoice choice_;
};

}  // namespace

}  // namespace rdmabench::cuda

namespace rdmabench::detail {

std::unique_ptr<MemoryProvider> make_cuda_memory(const MemoryChoice& choice) {
  const std::string device = choice.cuda_bus_id.empty() ? std::to_string(choice.cuda_device)
                                                        : "at PCI " + choice.cuda_bus_id;
  auto gpu = std::make_shared<const cuda::GpuContext>(cuda::Driver::load(choice.name(), device), choice);
  if (choice.kind == MemoryChoice::Kind::cuda)
    return std::make_unique<cuda::CudaDeviceMemory>(std::move(gpu), choice);
  return std::make_unique<cuda::CudaPinnedHostMemory>(std::move(gpu), choice);
}

}  // namespace rdmabench::detail
