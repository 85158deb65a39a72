// libcuda-standin.so: a STAND-IN for the CUDA driver, for tests on machines
// without a GPU. It is not CUDA. It implements the driver entry points that
// rdmabench's CUDA plug-in uses with ordinary host memory behind them
// (cuMemAlloc is an aligned host allocation, copies are memcpy), and is
// loaded the way the real driver is: RDMABENCH_CUDA_DRIVER=/path/to/it.
//
// It checks its callers as the real driver would (a context must be current,
// copies must stay inside an allocation) and counts what is outstanding, so
// tests can prove that nothing leaks. Knobs, read at each call:
//   CUDA_STANDIN_DEVICES=N    how many "GPUs" (default 1; 0: cuInit fails
//                             with CUDA_ERROR_NO_DEVICE, as on a machine
//                             with a driver and no GPU)
//   CUDA_STANDIN_DMABUF=memfd cuMemGetHandleForAddressRange returns a memfd
//                             (default): not a real dma-buf, so
//                             ibv_reg_dmabuf_mr is tried and refused
//   CUDA_STANDIN_DMABUF=fail  it returns CUDA_ERROR_NOT_SUPPORTED
//   CUDA_STANDIN_CPU_ACCESS=none  "device memory" the process cannot touch
//                             once registered, as a GPU's (see
//                             device_memory_guard.cpp; needs LD_PRELOAD)
// Device i sits at PCI address 0000:(0x10 + i):00.0.
#include <cuda.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "standin_state.hpp"

namespace cuda_standin {

CUresult ready(const State& s) {
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

struct ErrorText {
  CUresult result;
  const char* name;
  const char* text;
};
constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

}  // namespace cuda_standin

using namespace cuda_standin;

extern "C" {

/// What this library is, for rdmabench's reports.
__attribute__((visibility("default"))) const char* rdmabench_cuda_standin() {
  return "CUDA stand-in driver (host memory, no GPU)";
}

/// Allocations and retained contexts not yet given back.
__attribute__((visibility("default"))) int rdmabench_cuda_standin_outstanding() {
  State& s = state();
  std::lock_guard g(s.lock);
  int n = static_cast<int>(s.device_memory.size() + s.host_memory.size());
  for (const auto& c : s.contexts) n += c.retained;
  return n;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char** text) {
  for (const auto& e : kErrors)
    if (e.result == error) return *text = e.text, CUDA_SUCCESS;
  *text = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char** name) {
  for (const auto& e : kErrors)
    if (e.result == error) return *name = e.name, CUDA_SUCCESS;
  *name = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  State& s = state();
  std::lock_guard g(s.lock);
  s.devices = env_int("CUDA_STANDIN_DEVICES", 1);
  if (s.devices <= 0) return CUDA_ERROR_NO_DEVICE;
  if (!guard_ready()) return CUDA_ERROR_NOT_INITIALIZED;
  if (s.devices > 16) s.devices = 16;
  s.initialised = true;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
  if (!state().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  *count = state().devices;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  if (!state().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= state().devices) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice* device, const char* bus_id) {
  if (!state().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  unsigned domain = 0, bus = 0, slot = 0, function = 0;
  char end = 0;
  const bool full = std::sscanf(bus_id, "%x:%x:%x.%x%c", &domain, &bus, &slot, &function, &end) == 4;
  if (!full && std::sscanf(bus_id, "%x:%x.%x%c", &bus, &slot, &function, &end) != 3)
    return CUDA_ERROR_INVALID_VALUE;
  const int ordinal = static_cast<int>(bus) - 0x10;
  if (domain != 0 || slot != 0 || function != 0 || ordinal < 0 || ordinal >= state().devices)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

// The mirror of cuDeviceGetByPCIBusId above: stand-in GPU N sits at bus 0x10 + N.
CUresult CUDAAPI cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
  if (device < 0 || device >= state().devices) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(bus_id, static_cast<std::size_t>(length), "00000000:%02X:00.0", 0x10 + device);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char* name, int length, CUdevice device) {
  if (device < 0 || device >= state().devices) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<std::size_t>(length), "stand-in GPU %d", device);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  State& s = state();
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= s.devices) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard g(s.lock);
  s.contexts[device].device = device;
  ++s.contexts[device].retained;
  *context = reinterpret_cast<CUcontext>(&s.contexts[device]);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice device) {
  State& s = state();
  if (device < 0 || device >= s.devices) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard g(s.lock);
  if (s.contexts[device].retained == 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (--s.contexts[device].retained == 0 && current == &s.contexts[device]) current = nullptr;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext context) {
  auto* c = reinterpret_cast<Context*>(context);
  if (c && c->retained == 0) return CUDA_ERROR_INVALID_CONTEXT;
  current = c;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr* pointer, size_t bytes) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  // Real allocations are at least 2 MiB-aligned for large sizes; 64 KiB is
  // what GPUDirect RDMA relies on. Whole pages of their own, so that the
  // guard can take the CPU's access away from exactly these.
  constexpr std::size_t kAlign = 64 << 10;
  const std::size_t length = (bytes + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, length);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(p, 0xa5, bytes);  // device memory is not zeroed: neither is ours
  std::lock_guard g(s.lock);
  s.device_memory[reinterpret_cast<std::uintptr_t>(p)] = {bytes, length};
  *pointer = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr pointer) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  std::lock_guard g(s.lock);
  const auto it = s.device_memory.find(static_cast<std::uintptr_t>(pointer));
  if (it == s.device_memory.end()) return CUDA_ERROR_INVALID_VALUE;
  give_cpu_access(it->first, it->second);  // free() writes its bookkeeping
  s.device_memory.erase(it);
  std::free(reinterpret_cast<void*>(pointer));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocHost(void** pointer, size_t bytes) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  void* p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard g(s.lock);
  s.host_memory[reinterpret_cast<std::uintptr_t>(p)] = {bytes, bytes};
  *pointer = p;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeHost(void* pointer) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  std::lock_guard g(s.lock);
  if (s.host_memory.erase(reinterpret_cast<std::uintptr_t>(pointer)) == 0) return CUDA_ERROR_INVALID_VALUE;
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr pointer, unsigned char value, size_t count) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  std::lock_guard g(s.lock);
  if (!inside(s.device_memory, pointer, count)) return CUDA_ERROR_INVALID_VALUE;
  as_the_driver(s, pointer, [&] { std::memset(reinterpret_cast<void*>(pointer), value, count); });
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr to, const void* from, size_t bytes) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  std::lock_guard g(s.lock);
  if (!inside(s.device_memory, to, bytes)) return CUDA_ERROR_INVALID_VALUE;
  as_the_driver(s, to, [&] { std::memcpy(reinterpret_cast<void*>(to), from, bytes); });
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH(void* to, CUdeviceptr from, size_t bytes) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  std::lock_guard g(s.lock);
  if (!inside(s.device_memory, from, bytes)) return CUDA_ERROR_INVALID_VALUE;
  as_the_driver(s, from, [&] { std::memcpy(to, reinterpret_cast<const void*>(from), bytes); });
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerSetAttribute(const void* value, CUpointer_attribute attribute, CUdeviceptr pointer) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  std::lock_guard g(s.lock);
  if (attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS || !value || !inside(s.device_memory, pointer, 1))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetHandleForAddressRange(void* handle, CUdeviceptr pointer, size_t bytes,
                                               CUmemRangeHandleType type, unsigned long long flags) {
  State& s = state();
  if (CUresult r = ready(s); r != CUDA_SUCCESS) return r;
  const char* mode = std::getenv("CUDA_STANDIN_DMABUF");
  if (mode && std::strcmp(mode, "fail") == 0) return CUDA_ERROR_NOT_SUPPORTED;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  std::lock_guard g(s.lock);
  if (type != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || flags != 0 || pointer % page != 0 ||
      bytes % page != 0 || !inside(s.device_memory, pointer, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  const int fd = ::memfd_create("cuda-standin-dmabuf", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *static_cast<int*>(handle) = fd;
  return CUDA_SUCCESS;
}

}  // extern "C"
