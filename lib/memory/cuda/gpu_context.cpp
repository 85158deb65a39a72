#include "memory/cuda/gpu_context.hpp"

#include <fmt/format.h>

#include "memory/gpu/gpu_device_memory.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::cuda {

namespace {

constexpr const char* kListGpus = "nvidia-smi --query-gpu=index,pci.bus_id --format=csv lists the GPUs";

CUdevice find_device(const Driver& driver, const MemoryChoice& choice) {
  const auto& api = driver.api();
  CUdevice device = 0;
  if (!choice.cuda_bus_id.empty()) {
    if (CUresult r = api.device_get_by_pci_bus_id(&device, choice.cuda_bus_id.c_str()); r != CUDA_SUCCESS)
      throw Error(fmt::format("--mem {}: no CUDA device at PCI {}: {}", choice.name(), choice.cuda_bus_id,
                              driver.describe(r, "cuDeviceGetByPCIBusId")),
                  kListGpus);
    return device;
  }
  int count = 0;
  driver.check(api.device_get_count(&count), "cuDeviceGetCount");
  if (choice.gpu_device >= count)
    throw Error(fmt::format("--mem {}: no CUDA device {} (found {})", choice.name(), choice.gpu_device, count),
                count > 0 ? fmt::format("valid: 0 to {}; {}", count - 1, kListGpus) : std::string(kListGpus));
  driver.check(api.device_get(&device, choice.gpu_device), "cuDeviceGet");
  return device;
}

}  // namespace

GpuContext::GpuContext(std::shared_ptr<const Driver> driver, const MemoryChoice& choice)
    : driver_(std::move(driver)), device_(find_device(*driver_, choice)) {
  char name[256] = {};
  driver_->check(api().device_get_name(name, sizeof name, device_), "cuDeviceGetName");
  description_ = name;
  char bus_id[32] = {};
  driver_->check(api().device_get_pci_bus_id(bus_id, sizeof bus_id, device_), "cuDeviceGetPCIBusId");
  pci_address_ = gpu::sysfs_pci_address(bus_id);  // CUDA prints "00000000:3B:00.0"
  if (!pci_address_.empty()) description_ += ", PCI " + pci_address_;
  if (!driver_->standin().empty()) description_ += ", " + driver_->standin();
  driver_->check(api().primary_ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain",
                 "another process may hold the GPU in exclusive mode (nvidia-smi -q shows Compute Mode)");
  try {
    make_current();
  } catch (...) {
    api().primary_ctx_release(device_);  // no destructor runs for a throwing constructor
    throw;
  }
}

GpuContext::~GpuContext() {
  if (context_) api().primary_ctx_release(device_);
}

void GpuContext::make_current() const { driver_->check(api().ctx_set_current(context_), "cuCtxSetCurrent"); }

}  // namespace rdmabench::cuda
