// The ROCm memory provider: device memory of an AMD GPU (rocm:N) from
// hipMalloc, registered for GPUDirect RDMA by dma-buf
// (hipMemGetHandleForAddressRange) or peer memory (ibv_reg_mr on the device
// pointer, which amdgpu's peer-memory client pins), as lib/memory/gpu does
// for every GPU.
#include <fmt/format.h>

#include "memory/gpu/gpu_device_memory.hpp"
#include "memory/rocm/hip_runtime.hpp"
#include "memory/rocm_memory.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::rocm {

namespace {

constexpr const char* kListAmdGpus = "rocm-smi --showbus lists the GPUs and their PCI addresses";

/// One AMD GPU by ordinal. HIP's calls act on the calling thread's current
/// device, so each one below sets it first (buffers are freed, and copies
/// made, from whichever thread holds them).
class HipDevice {
 public:
  HipDevice(std::shared_ptr<const Runtime> runtime, const MemoryChoice& choice)
      : runtime_(std::move(runtime)), ordinal_(choice.gpu_device) {
    int count = 0;
    // A runtime whose hipInit succeeds without a GPU says so here instead.
    if (hipError_t e = api().get_device_count(&count); e != hipErrorNoDevice) runtime_->check(e, "hipGetDeviceCount");
    if (ordinal_ >= count)
      throw Error(fmt::format("--mem {}: no ROCm device {} (found {})", choice.name(), ordinal_, count),
                  count > 0 ? fmt::format("valid: 0 to {}; {}", count - 1, kListAmdGpus) : std::string(kListAmdGpus));
    hipDevice_t device = 0;
    runtime_->check(api().device_get(&device, ordinal_), "hipDeviceGet");
    char name[256] = {};
    runtime_->check(api().device_get_name(name, sizeof name, device), "hipDeviceGetName");
    description_ = name;
    char bus_id[32] = {};
    runtime_->check(api().device_get_pci_bus_id(bus_id, sizeof bus_id, ordinal_), "hipDeviceGetPCIBusId");
    pci_address_ = gpu::sysfs_pci_address(bus_id);
    if (!pci_address_.empty()) description_ += ", PCI " + pci_address_;
    if (!runtime_->standin().empty()) description_ += ", " + runtime_->standin();
    make_current();
  }

  void make_current() const { runtime_->check(api().set_device(ordinal_), "hipSetDevice"); }
  const Runtime& runtime() const { return *runtime_; }
  const HipApi& api() const { return runtime_->api(); }
  int ordinal() const { return ordinal_; }
  const std::string& description() const { return description_; }
  const std::string& pci_address() const { return pci_address_; }

 private:
  std::shared_ptr<const Runtime> runtime_;
  int ordinal_;
  std::string description_;
  std::string pci_address_;
};

class HipDeviceMemory final : public gpu::GpuDeviceMemory {
 public:
  HipDeviceMemory(std::shared_ptr<const HipDevice> gpu, const MemoryChoice& choice)
      : GpuDeviceMemory(choice, gpu::rocm_registration_hints(), gpu->description(), gpu->pci_address()),
        gpu_(std::move(gpu)) {}

  Buffer allocate(std::size_t bytes) override {
    const std::size_t length = gpu::round_up(bytes, gpu::kGpuPage);
    gpu_->make_current();
    void* pointer = nullptr;
    check(api().mem_alloc(&pointer, length), fmt::format("hipMalloc({} bytes on {})", length, name()));
    Buffer buffer(pointer, length, [gpu = gpu_](void* data, std::size_t) {
      gpu->api().set_device(gpu->ordinal());  // no throwing from a release
      gpu->api().mem_free(data);
    });
    check(api().mem_set(pointer, 0, length), "hipMemset");
    finish_device_work();
    return buffer;
  }

  std::string runtime() const override {
    const auto& r = gpu_->runtime();
    return "HIP runtime " + r.library() + (r.standin().empty() ? "" : " -- a " + r.standin() + ", NOT a GPU");
  }

  gpu::DmabufExport export_dmabuf(std::uintptr_t start, std::size_t length) const override {
    const auto get_handle = api().mem_get_handle_for_address_range;
    if (!get_handle) return {-1, "the HIP runtime has no hipMemGetHandleForAddressRange (an older ROCm)"};
    int fd = -1;
    gpu_->make_current();
    if (hipError_t e = get_handle(&fd, reinterpret_cast<hipDeviceptr_t>(start), length,
                                  hipMemRangeHandleTypeDmaBufFd, 0);
        e != hipSuccess)
      return {-1, gpu_->runtime().describe(e, "hipMemGetHandleForAddressRange")};
    return {fd, {}};
  }

 protected:
  void copy_to_device(std::byte* device, const std::byte* host, std::size_t bytes) override {
    gpu_->make_current();
    check(api().mem_copy(device, host, bytes, hipMemcpyHostToDevice), "hipMemcpy(host to device)");
    finish_device_work();
  }

  void copy_from_device(std::byte* host, const std::byte* device, std::size_t bytes) override {
    gpu_->make_current();
    check(api().mem_copy(host, device, bytes, hipMemcpyDeviceToHost), "hipMemcpy(device to host)");
  }

 private:
  const HipApi& api() const { return gpu_->api(); }
  void check(hipError_t result, const std::string& call) const { gpu_->runtime().check(result, call.c_str()); }

  /// hipMemset, and a hipMemcpy from pageable host memory, may return
  /// before the GPU has written the data; a later RDMA access by the NIC
  /// must find it there (CUDA's SYNC_MEMOPS attribute, which HIP lacks).
  void finish_device_work() const { check(api().device_synchronize(), "hipDeviceSynchronize"); }

  std::shared_ptr<const HipDevice> gpu_;
};

}  // namespace

}  // namespace rdmabench::rocm

namespace rdmabench::detail {

std::unique_ptr<MemoryProvider> make_rocm_memory(const MemoryChoice& choice) {
  auto gpu = std::make_shared<const rocm::HipDevice>(rocm::Runtime::load(choice.name(), choice.gpu_device),
                                                     choice);
  return std::make_unique<rocm::HipDeviceMemory>(std::move(gpu), choice);
}

}  // namespace rdmabench::detail
