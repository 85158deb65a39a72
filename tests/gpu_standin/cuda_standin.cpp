// libcuda-standin.so: a STAND-IN for the CUDA driver, for tests on machines
// without a GPU. It is not CUDA. It implements the driver entry points that
// rdmabench's CUDA plug-in uses with ordinary host memory behind them
// (standin_memory.cpp: cuMemAlloc is an aligned host allocation, copies are
// memcpy), and is loaded the way the real driver is:
// RDMABENCH_CUDA_DRIVER=/path/to/it.
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

#include <cstdio>
#include <cstring>

#include "standin_state.hpp"

namespace gpu_standin {

const char* knob_prefix() { return "CUDA_STANDIN_"; }

namespace {

// initial-exec: in the static TLS block glibc keeps for dlopened libraries,
// not in dynamic TLS, whose entries GCC 12's LeakSanitizer misreads at
// exit (it crashed the sanitizer unit tier: "Tracer caught signal 11",
// after a DTLS range starting at 0x5dc1).
thread_local Context* current __attribute__((tls_model("initial-exec"))) = nullptr;

CUresult ready(const State& s) {
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuda_result(Outcome o) {
  switch (o) {
    case Outcome::ok: return CUDA_SUCCESS;
    case Outcome::invalid: return CUDA_ERROR_INVALID_VALUE;
    case Outcome::out_of_memory: return CUDA_ERROR_OUT_OF_MEMORY;
    case Outcome::not_supported: return CUDA_ERROR_NOT_SUPPORTED;
    case Outcome::no_device: return CUDA_ERROR_NO_DEVICE;
    case Outcome::not_initialised: return CUDA_ERROR_NOT_INITIALIZED;
  }
  return CUDA_ERROR_INVALID_VALUE;
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

}  // namespace

}  // namespace gpu_standin

using namespace gpu_standin;

extern "C" {

/// What this library is, for rdmabench's reports.
__attribute__((visibility("default"))) const char* rdmabench_gpu_standin() {
  return "CUDA stand-in driver (host memory, no GPU)";
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
  return cuda_result(initialise());
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
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  std::uintptr_t p = 0;
  if (CUresult r = cuda_result(device_alloc(bytes, p)); r != CUDA_SUCCESS) return r;
  *pointer = static_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr pointer) {
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  return cuda_result(device_free(static_cast<std::uintptr_t>(pointer)));
}

CUresult CUDAAPI cuMemAllocHost(void** pointer, size_t bytes) {
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  return cuda_result(host_alloc(bytes, *pointer));
}

CUresult CUDAAPI cuMemFreeHost(void* pointer) {
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  return cuda_result(host_free(pointer));
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr pointer, unsigned char value, size_t count) {
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  return cuda_result(device_set(static_cast<std::uintptr_t>(pointer), value, count));
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr to, const void* from, size_t bytes) {
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  return cuda_result(copy_to_device(static_cast<std::uintptr_t>(to), from, bytes));
}

CUresult CUDAAPI cuMemcpyDtoH(void* to, CUdeviceptr from, size_t bytes) {
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  return cuda_result(copy_from_device(to, static_cast<std::uintptr_t>(from), bytes));
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
  if (CUresult r = ready(state()); r != CUDA_SUCCESS) return r;
  if (type != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return cuda_result(export_dmabuf(static_cast<std::uintptr_t>(pointer), bytes, *static_cast<int*>(handle)));
}

}  // extern "C"
