#pragma once
// One GPU, chosen by ordinal or PCI address, with its primary context
// retained for as long as any memory of it lives (buffers hold a shared_ptr).

#include <memory>
#include <string>

#include "memory/cuda/cuda_driver.hpp"
#include "rdmabench/memory/memory.hpp"

namespace rdmabench::cuda {

class GpuContext {
 public:
  /// Finds the GPU of `choice`; throws Error "no CUDA device N (found M)" or
  /// "no CUDA device at PCI ..." naming what exists.
  GpuContext(std::shared_ptr<const Driver> driver, const MemoryChoice& choice);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  /// Driver calls act on the calling thread's current context.
  void make_current() const;
  const Driver& driver() const { return *driver_; }
  const DriverApi& api() const { return driver_->api(); }
  CUcontext context() const { return context_; }
  /// "NVIDIA H200", plus what a stand-in driver says it is.
  const std::string& description() const { return description_; }
  /// "0000:3b:00.0", lower case, as sysfs names the GPU.
  const std::string& pci_address() const { return pci_address_; }

 private:
  std::shared_ptr<const Driver> driver_;  // declared first: unloaded last
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  std::string description_;
  std::string pci_address_;
};

}  // namespace rdmabench::cuda
