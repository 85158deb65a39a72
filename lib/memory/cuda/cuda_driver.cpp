#include "memory/cuda/cuda_driver.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "rdmabench/verbs/error.hpp"

// cuda.h #defines versioned names (cuMemAlloc -> cuMemAlloc_v2); stringizing
// after expansion gives the symbol the driver exports for the prototype used.
#define RDMABENCH_STRINGIZE(x) #x
#define RDMABENCH_SYMBOL(name) RDMABENCH_STRINGIZE(name)

namespace rdmabench::cuda {

namespace {

constexpr const char* kCudaDriverOverride = "RDMABENCH_CUDA_DRIVER";

void resolve_all(const gpu::RuntimeLibrary& l, DriverApi& a) {
  l.resolve(a.get_error_string, RDMABENCH_SYMBOL(cuGetErrorString));
  l.resolve(a.get_error_name, RDMABENCH_SYMBOL(cuGetErrorName));
  l.resolve(a.init, RDMABENCH_SYMBOL(cuInit));
  l.resolve(a.device_get_count, RDMABENCH_SYMBOL(cuDeviceGetCount));
  l.resolve(a.device_get, RDMABENCH_SYMBOL(cuDeviceGet));
  l.resolve(a.device_get_by_pci_bus_id, RDMABENCH_SYMBOL(cuDeviceGetByPCIBusId));
  l.resolve(a.device_get_name, RDMABENCH_SYMBOL(cuDeviceGetName));
  l.resolve(a.device_get_pci_bus_id, RDMABENCH_SYMBOL(cuDeviceGetPCIBusId));
  l.resolve(a.primary_ctx_retain, RDMABENCH_SYMBOL(cuDevicePrimaryCtxRetain));
  l.resolve(a.primary_ctx_release, RDMABENCH_SYMBOL(cuDevicePrimaryCtxRelease));
  l.resolve(a.ctx_set_current, RDMABENCH_SYMBOL(cuCtxSetCurrent));
  l.resolve(a.mem_alloc, RDMABENCH_SYMBOL(cuMemAlloc));
  l.resolve(a.mem_free, RDMABENCH_SYMBOL(cuMemFree));
  l.resolve(a.mem_alloc_host, RDMABENCH_SYMBOL(cuMemAllocHost));
  l.resolve(a.mem_free_host, RDMABENCH_SYMBOL(cuMemFreeHost));
  l.resolve(a.memset_d8, RDMABENCH_SYMBOL(cuMemsetD8));
  l.resolve(a.memcpy_htod, RDMABENCH_SYMBOL(cuMemcpyHtoD));
  l.resolve(a.memcpy_dtoh, RDMABENCH_SYMBOL(cuMemcpyDtoH));
  l.resolve(a.pointer_set_attribute, RDMABENCH_SYMBOL(cuPointerSetAttribute));
  l.resolve(a.mem_get_handle_for_address_range, RDMABENCH_SYMBOL(cuMemGetHandleForAddressRange),
            /*optional=*/true);
}

}  // namespace

std::string driver_library() {
  const char* path = std::getenv(kCudaDriverOverride);
  return path && *path ? path : "libcuda.so.1";
}

Driver::Driver()
    : library_("CUDA driver", {driver_library()},
               "it may be older than this build's CUDA Toolkit; update the NVIDIA driver") {}

std::shared_ptr<const Driver> Driver::load(const std::string& memory, const std::string& device) {
  std::shared_ptr<Driver> d(new Driver);
  if (!d->library_.loaded())
    throw Error(fmt::format("--mem {}: no CUDA driver: cannot load {} ({})", memory, d->library_.path(),
                            d->library_.failures()),
                fmt::format("GPU memory needs the NVIDIA driver; set {} to its path if it is "
                            "installed elsewhere, or use --mem host",
                            kCudaDriverOverride));
  resolve_all(d->library_, d->api_);
  if (CUresult r = d->api_.init(0); r != CUDA_SUCCESS)
    throw Error(fmt::format("--mem {}: no CUDA device {} (found 0): {}", memory, device,
                            d->describe(r, "cuInit")),
                "nvidia-smi lists the GPUs the driver sees; or use --mem host");
  return d;
}

std::string Driver::describe(CUresult result, const char* call) const {
  const char* text = nullptr;
  const char* name = nullptr;
  if (api_.get_error_string) api_.get_error_string(result, &text);
  if (api_.get_error_name) api_.get_error_name(result, &name);
  return fmt::format("{} failed: {} ({})", call, text ? text : "unknown error",
                     name ? name : fmt::format("CUresult {}", static_cast<int>(result)));
}

void Driver::check(CUresult result, const char* call, const std::string& hint) const {
  if (result != CUDA_SUCCESS) throw Error(describe(result, call), hint);
}

}  // namespace rdmabench::cuda
