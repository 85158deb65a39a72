#include "memory/rocm/hip_runtime.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::rocm {

namespace {

constexpr const char* kHipRuntimeOverride = "RDMABENCH_HIP_RUNTIME";

void resolve_hip_api(const gpu::RuntimeLibrary& l, HipApi& a) {
  l.resolve(a.get_error_name, "hipGetErrorName");
  l.resolve(a.get_error_string, "hipGetErrorString");
  l.resolve(a.init, "hipInit");
  l.resolve(a.get_device_count, "hipGetDeviceCount");
  l.resolve(a.device_get, "hipDeviceGet");
  l.resolve(a.device_get_name, "hipDeviceGetName");
  l.resolve(a.device_get_pci_bus_id, "hipDeviceGetPCIBusId");
  l.resolve(a.set_device, "hipSetDevice");
  l.resolve(a.mem_alloc, "hipMalloc");
  l.resolve(a.mem_free, "hipFree");
  l.resolve(a.mem_set, "hipMemset");
  l.resolve(a.mem_copy, "hipMemcpy");
  l.resolve(a.device_synchronize, "hipDeviceSynchronize");
  l.resolve(a.mem_get_handle_for_address_range, "hipMemGetHandleForAddressRange", /*optional=*/true);
}

/// What dlopen said for each candidate, unless each was simply absent.
std::string load_failure(const gpu::RuntimeLibrary& l) {
  if (!l.none_found()) return fmt::format("cannot load {} ({})", l.path(), l.failures());
  const auto tried = runtime_candidates();
  return tried.size() == 1 ? fmt::format("{} was not found", l.path())
                           : fmt::format("{} was not found (tried {})", tried.front(), l.path());
}

}  // namespace

std::vector<std::string> runtime_candidates() {
  if (const char* path = std::getenv(kHipRuntimeOverride); path && *path) return {path};
  return {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"};
}

Runtime::Runtime()
    : library_("HIP runtime", runtime_candidates(), "it may be older than this build expects; update ROCm") {}

std::shared_ptr<const Runtime> Runtime::load(const std::string& memory, int device) {
  std::shared_ptr<Runtime> r(new Runtime);
  if (!r->library_.loaded())
    throw Error(fmt::format("--mem {}: no HIP runtime: {}", memory, load_failure(r->library_)),
                fmt::format("ROCm GPU memory needs AMD's HIP runtime, libamdhip64.so: install ROCm (its "
                            "hip-runtime-amd package) or the distribution's libamdhip64 package, or set {} "
                            "to its path if it is installed elsewhere; or use --mem host, or --mem cuda:N on an "
                            "NVIDIA GPU",
                            kHipRuntimeOverride));
  resolve_hip_api(r->library_, r->api_);
  if (hipError_t e = r->api_.init(0); e != hipSuccess)
    throw Error(fmt::format("--mem {}: no ROCm device {} (found 0): {}", memory, device, r->describe(e, "hipInit")),
                "rocm-smi lists the GPUs ROCm sees (the user needs the render and video groups); or use --mem host");
  return r;
}

std::string Runtime::describe(hipError_t result, const char* call) const {
  const char* name = api_.get_error_name ? api_.get_error_name(result) : nullptr;
  const char* text = api_.get_error_string ? api_.get_error_string(result) : nullptr;
  return fmt::format("{} failed: {} ({})", call, text ? text : "unknown error",
                     name ? name : fmt::format("hipError_t {}", static_cast<int>(result)));
}

void Runtime::check(hipError_t result, const char* call, const std::string& hint) const {
  if (result != hipSuccess) throw Error(describe(result, call), hint);
}

}  // namespace rdmabench::rocm
