// The CUDA memory providers: device memory (cuda:N), registered for
// GPUDirect RDMA by dma-buf or peer memory (lib/memory/gpu), and pinned host
// memory (cuda-host:N), which the CPU and NIC reach like any host memory.
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>

#include "memory/cuda_memory.hpp"
#include "memory/cuda/gpu_context.hpp"
#include "memory/gpu/gpu_device_memory.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::cuda {

namespace {

CUdeviceptr device_pointer(const void* data) { return reinterpret_cast<CUdeviceptr>(data); }

class CudaDeviceMemory final : public gpu::GpuDeviceMemory {
 public:
  CudaDeviceMemory(std::shared_ptr<const GpuContext> gpu, const MemoryChoice& choice)
      : GpuDeviceMemory(choice, gpu::cuda_registration_hints(), gpu->description(), gpu->pci_address()),
        gpu_(std::move(gpu)) {}

  Buffer allocate(std::size_t bytes) override {
    const std::size_t length = gpu::round_up(bytes, gpu::kGpuPage);
    gpu_->make_current();
    CUdeviceptr pointer = 0;
    gpu_->driver().check(gpu_->api().mem_alloc(&pointer, length),
                         fmt::format("cuMemAlloc({} bytes on {})", length, name()).c_str());
    Buffer buffer(reinterpret_cast<void*>(pointer), length, [gpu = gpu_](void* data, std::size_t) {
      gpu->api().ctx_set_current(gpu->context());  // no throwing from a release
      gpu->api().mem_free(device_pointer(data));
    });
    // GPUDirect RDMA needs the GPU's own copies to finish before a later
    // RDMA access to the same memory; SYNC_MEMOPS makes them so.
    const unsigned int sync = 1;
    gpu_->driver().check(gpu_->api().pointer_set_attribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, pointer),
                         "cuPointerSetAttribute(SYNC_MEMOPS)");
    gpu_->driver().check(gpu_->api().memset_d8(pointer, 0, length), "cuMemsetD8");
    return buffer;
  }

  std::string runtime() const override {
    const auto& d = gpu_->driver();
    return "CUDA driver " + d.library() + (d.standin().empty() ? "" : " -- a " + d.standin() + ", NOT a GPU");
  }

  gpu::DmabufExport export_dmabuf(std::uintptr_t start, std::size_t length) const override {
    const auto get_handle = gpu_->api().mem_get_handle_for_address_range;
    if (!get_handle) return {-1, "the CUDA driver has no cuMemGetHandleForAddressRange (older than CUDA 11.7)"};
    int fd = -1;
    gpu_->make_current();
    if (CUresult r = get_handle(&fd, start, length, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0); r != CUDA_SUCCESS)
      return {-1, gpu_->driver().describe(r, "cuMemGetHandleForAddressRange")};
    return {fd, {}};
  }

 protected:
  void copy_to_device(std::byte* device, const std::byte* host, std::size_t bytes) override {
    gpu_->make_current();
    gpu_->driver().check(gpu_->api().memcpy_htod(device_pointer(device), host, bytes), "cuMemcpyHtoD");
  }

  void copy_from_device(std::byte* host, const std::byte* device, std::size_t bytes) override {
    gpu_->make_current();
    gpu_->driver().check(gpu_->api().memcpy_dtoh(host, device_pointer(device), bytes), "cuMemcpyDtoH");
  }

 private:
  std::shared_ptr<const GpuContext> gpu_;
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
    const std::size_t length = gpu::round_up(bytes, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
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
  const std::string device = choice.cuda_bus_id.empty() ? std::to_string(choice.gpu_device)
                                                        : "at PCI " + choice.cuda_bus_id;
  auto gpu = std::make_shared<const cuda::GpuContext>(cuda::Driver::load(choice.name(), device), choice);
  if (choice.kind == MemoryChoice::Kind::cuda)
    return std::make_unique<cuda::CudaDeviceMemory>(std::move(gpu), choice);
  return std::make_unique<cuda::CudaPinnedHostMemory>(std::move(gpu), choice);
}

}  // namespace rdmabench::detail
