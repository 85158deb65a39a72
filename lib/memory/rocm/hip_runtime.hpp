#pragma once
// AMD's HIP runtime (libamdhip64.so), loaded at run time with dlopen, as the
// CUDA plug-in loads the CUDA driver: the same binaries run on machines
// without ROCm and only fail (clearly) when ROCm GPU memory is asked for.

#include <memory>
#include <string>
#include <vector>

#include "memory/gpu/runtime_library.hpp"
#include "memory/rocm/hip_api.hpp"

namespace rdmabench::rocm {

/// The libraries dlopen tries, in order: $RDMABENCH_HIP_RUNTIME alone when
/// set (how the tests load the stand-in), else libamdhip64.so, its
/// versioned names and /opt/rocm's copy.
std::vector<std::string> runtime_candidates();

/// The HIP entry points we use, typed by hip_api.hpp.
struct HipApi {
  decltype(&::hipGetErrorName) get_error_name;
  decltype(&::hipGetErrorString) get_error_string;
  decltype(&::hipInit) init;
  decltype(&::hipGetDeviceCount) get_device_count;
  decltype(&::hipDeviceGet) device_get;
  decltype(&::hipDeviceGetName) device_get_name;
  decltype(&::hipDeviceGetPCIBusId) device_get_pci_bus_id;
  decltype(&::hipSetDevice) set_device;
  decltype(&::hipMalloc) mem_alloc;
  decltype(&::hipFree) mem_free;
  decltype(&::hipMemset) mem_set;
  decltype(&::hipMemcpy) mem_copy;
  decltype(&::hipDeviceSynchronize) device_synchronize;
  /// Null in older ROCm releases: then only peer memory can work.
  decltype(&::hipMemGetHandleForAddressRange) mem_get_handle_for_address_range;
};

/// A loaded and initialised HIP runtime; dlclose'd when the last user lets
/// go (buffers hold a shared_ptr to it).
class Runtime {
 public:
  /// Loads the runtime and calls hipInit. Throws Error "--mem rocm:0: no
  /// HIP runtime: libamdhip64.so was not found" (with what to install) when
  /// no candidate loads, and "no ROCm device 0 (found 0)" with the runtime's
  /// reason when hipInit finds no GPU.
  static std::shared_ptr<const Runtime> load(const std::string& memory, int device);
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const HipApi& api() const { return api_; }
  const std::string& library() const { return library_.path(); }
  const std::string& standin() const { return library_.standin(); }
  /// "hipMalloc failed: out of memory (hipErrorOutOfMemory)".
  std::string describe(hipError_t result, const char* call) const;
  /// Throws Error(describe(result, call)) unless result is hipSuccess.
  void check(hipError_t result, const char* call, const std::string& hint = {}) const;

 private:
  Runtime();
  gpu::RuntimeLibrary library_;
  HipApi api_{};
};

}  // namespace rdmabench::rocm
