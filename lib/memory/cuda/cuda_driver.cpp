#include "memory/cuda/cuda_driver.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

#include "rdmabench/verbs/error.hpp"

// cuda.h #defines versioned names (cuMemAlloc -> cuMemAlloc_v2); stringizing
// after expansion gives the symbol the driver exports for the prototype used.
#define RDMABENCH_STRINGIZE(x) #x
#define RDMABENCH_SYMBOL(name) RDMABENCH_STRINGIZE(name)

namespace rdmabench::cuda {

namespace {

constexpr const char* kOverride = "RDMABENCH_CUDA_DRIVER";

/// The stand-in driver of the tests exports this, so that every report
/// says the "GPU" was host memory.
using StandinName = const char* (*)();

template <typename Function>
void resolve(void* handle, Function& target, const char* symbol, const std::string& library,
             bool optional = false) {
  target = reinterpret_cast<Function>(::dlsym(handle, symbol));
  if (!target && !optional)
    throw Error(fmt::format("the CUDA driver {} has no {}", library, symbol),
                "it may be older than this build's CUDA Toolkit; update the NVIDIA driver");
}

void resolve_all(void* handle, DriverApi& a, const std::string& library) {
  resolve(handle, a.get_error_string, RDMABENCH_SYMBOL(cuGetErrorString), library);
  resolve(handle, a.get_error_name, RDMABENCH_SYMBOL(cuGetErrorName), library);
  resolve(handle, a.init, RDMABENCH_SYMBOL(cuInit), library);
  resolve(handle, a.device_get_count, RDMABENCH_SYMBOL(cuDeviceGetCount), library);
  resolve(handle, a.device_get, RDMABENCH_SYMBOL(cuDeviceGet), library);
  resolve(handle, a.device_get_by_pci_bus_id, RDMABENCH_SYMBOL(cuDeviceGetByPCIBusId), library);
  resolve(handle, a.device_get_name, RDMABENCH_SYMBOL(cuDeviceGetName), library);
  resolve(handle, a.device_get_pci_bus_id, RDMABENCH_SYMBOL(cuDeviceGetPCIBusId), library);
  resolve(handle, a.primary_ctx_retain, RDMABENCH_SYMBOL(cuDevicePrimaryCtxRetain), library);
  resolve(handle, a.primary_ctx_release, RDMABENCH_SYMBOL(cuDevicePrimaryCtxRelease), library);
  resolve(handle, a.ctx_set_current, RDMABENCH_SYMBOL(cuCtxSetCurrent), library);
  resolve(handle, a.mem_alloc, RDMABENCH_SYMBOL(cuMemAlloc), library);
  resolve(handle, a.mem_free, RDMABENCH_SYMBOL(cuMemFree), library);
  resolve(handle, a.mem_alloc_host, RDMABENCH_SYMBOL(cuMemAllocHost), library);
  resolve(handle, a.mem_free_host, RDMABENCH_SYMBOL(cuMemFreeHost), library);
  resolve(handle, a.memset_d8, RDMABENCH_SYMBOL(cuMemsetD8), library);
  resolve(handle, a.memcpy_htod, RDMABENCH_SYMBOL(cuMemcpyHtoD), library);
  resolve(handle, a.memcpy_dtoh, RDMABENCH_SYMBOL(cuMemcpyDtoH), library);
  resolve(handle, a.pointer_set_attribute, RDMABENCH_SYMBOL(cuPointerSetAttribute), library);
  resolve(handle, a.mem_get_handle_for_address_range, RDMABENCH_SYMBOL(cuMemGetHandleForAddressRange),
          library, /*optional=*/true);
}

}  // namespace

std::string driver_library() {
  const char* path = std::getenv(kOverride);
  return path && *path ? path : "libcuda.so.1";
}

std::shared_ptr<const Driver> Driver::load(const std::string& memory, const std::string& device) {
  std::shared_ptr<Driver> d(new Driver);
  d->library_ = driver_library();
  d->handle_ = ::dlopen(d->library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!d->handle_) {
    const char* why = ::dlerror();
    throw Error(fmt::format("--mem {}: no CUDA driver: cannot load {} ({})", memory, d->library_,
                            why ? why : "unknown reason"),
                fmt::format("GPU memory needs the NVIDIA driver; set {} to its path if it is "
                            "installed elsewhere, or use --mem host",
                            kOverride));
  }
  if (auto name = reinterpret_cast<StandinName>(::dlsym(d->handle_, "rdmabench_cuda_standin")))
    d->standin_ = name();
  resolve_all(d->handle_, d->api_, d->library_);
  if (CUresult r = d->api_.init(0); r != CUDA_SUCCESS)
    throw Error(fmt::format("--mem {}: no CUDA device {} (found 0): {}", memory, device,
                            d->describe(r, "cuInit")),
                "nvidia-smi lists the GPUs the driver sees; or use --mem host");
  return d;
}

Driver::~Driver() {
  if (handle_) ::dlclose(handle_);
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
