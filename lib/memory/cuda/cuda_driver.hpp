#pragma once
// The CUDA driver, loaded at run time with dlopen: the same binaries then run
// on machines without a GPU driver and only fail (clearly) when GPU memory
// is asked for. The entry points are typed from the toolkit's cuda.h, so a
// prototype change is a compile error, not a crash.

#include <cuda.h>

#include <memory>
#include <string>

#include "memory/gpu/runtime_library.hpp"

namespace rdmabench::cuda {

/// The library dlopen loads: libcuda.so.1, or $RDMABENCH_CUDA_DRIVER (how the
/// tests load the stand-in driver, by the same path as the real one).
std::string driver_library();

/// The driver entry points we use. cuda.h maps several names to versioned
/// symbols (cuMemAlloc -> cuMemAlloc_v2); the loader resolves those.
struct DriverApi {
  decltype(&::cuGetErrorString) get_error_string;
  decltype(&::cuGetErrorName) get_error_name;
  decltype(&::cuInit) init;
  decltype(&::cuDeviceGetCount) device_get_count;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDeviceGetByPCIBusId) device_get_by_pci_bus_id;
  decltype(&::cuDeviceGetName) device_get_name;
  decltype(&::cuDeviceGetPCIBusId) device_get_pci_bus_id;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain;
  decltype(&::cuDevicePrimaryCtxRelease) primary_ctx_release;
  decltype(&::cuCtxSetCurrent) ctx_set_current;
  decltype(&::cuMemAlloc) mem_alloc;
  decltype(&::cuMemFree) mem_free;
  decltype(&::cuMemAllocHost) mem_alloc_host;
  decltype(&::cuMemFreeHost) mem_free_host;
  decltype(&::cuMemsetD8) memset_d8;
  decltype(&::cuMemcpyHtoD) memcpy_htod;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh;
  decltype(&::cuPointerSetAttribute) pointer_set_attribute;
  /// Null in drivers older than CUDA 11.7: then only peer memory can work.
  decltype(&::cuMemGetHandleForAddressRange) mem_get_handle_for_address_range;
};

/// A loaded and initialised driver; dlclose'd when the last user lets go
/// (contexts and buffers hold a shared_ptr to it).
class Driver {
 public:
  /// Loads driver_library() and calls cuInit. Throws Error "--mem cuda:0: no
  /// CUDA driver" when the library is missing, and "no CUDA device 0 (found
  /// 0)" (with the driver's reason) when cuInit finds no GPU. `memory` is
  /// what --mem asked for, `device` the GPU ("0", "at PCI 3b:00.0").
  static std::shared_ptr<const Driver> load(const std::string& memory, const std::string& device);
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  const DriverApi& api() const { return api_; }
  /// The path loaded, and, for the test stand-in, what it says it is.
  const std::string& library() const { return library_.path(); }
  const std::string& standin() const { return library_.standin(); }
  /// "cuMemAlloc: out of memory (CUDA_ERROR_OUT_OF_MEMORY)".
  std::string describe(CUresult result, const char* call) const;
  /// Throws Error(describe(result, what)) unless result is CUDA_SUCCESS.
  void check(CUresult result, const char* call, const std::string& hint = {}) const;

 private:
  Driver();
  gpu::RuntimeLibrary library_;
  DriverApi api_{};
};

}  // namespace rdmabench::cuda
