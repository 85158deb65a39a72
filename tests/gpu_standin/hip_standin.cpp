// libhip-standin.so: a STAND-IN for AMD's HIP runtime (libamdhip64.so), for
// tests on machines without an AMD GPU. It is not HIP. It defines the HIP
// entry points that rdmabench's ROCm plug-in uses, with the prototypes the
// plug-in types them by (lib/memory/rocm/hip_api.hpp, so that the two cannot
// drift apart), and ordinary host memory behind them (standin_memory.cpp,
// shared with the CUDA stand-in). It is loaded the way the real runtime is:
// RDMABENCH_HIP_RUNTIME=/path/to/it.
//
// Knobs, read at each call, as the CUDA stand-in's:
//   HIP_STANDIN_DEVICES=N     how many "GPUs" (default 1; 0: hipInit fails
//                             with hipErrorNoDevice)
//   HIP_STANDIN_DMABUF=memfd  hipMemGetHandleForAddressRange returns a memfd
//                             (default), which ibv_reg_dmabuf_mr refuses
//   HIP_STANDIN_DMABUF=fail   it returns hipErrorNotSupported
//   HIP_STANDIN_CPU_ACCESS=none  "device memory" the process cannot touch
//                             once registered (needs LD_PRELOAD)
// Device i sits at PCI address 0000:(0x20 + i):00.0, apart from the CUDA
// stand-in's GPUs.
#include <cstdio>

#include "memory/rocm/hip_api.hpp"
#include "standin_state.hpp"

namespace gpu_standin {

const char* knob_prefix() { return "HIP_STANDIN_"; }

namespace {

hipError_t hip_result(Outcome o) {
  switch (o) {
    case Outcome::ok: return hipSuccess;
    case Outcome::invalid: return hipErrorInvalidValue;
    case Outcome::out_of_memory: return hipErrorOutOfMemory;
    case Outcome::not_supported: return hipErrorNotSupported;
    case Outcome::no_device: return hipErrorNoDevice;
    case Outcome::not_initialised: return hipErrorNotInitialized;
  }
  return hipErrorInvalidValue;
}

bool valid_device(int device) { return state().initialised && device >= 0 && device < state().devices; }

struct HipErrorText {
  hipError_t error;
  const char* name;
  const char* text;
};
// The names and texts HIP gives these errors.
constexpr HipErrorText kHipErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
};

const HipErrorText* text_of(hipError_t error) {
  for (const auto& e : kHipErrors)
    if (e.error == error) return &e;
  return nullptr;
}

}  // namespace

}  // namespace gpu_standin

using namespace gpu_standin;

extern "C" {

/// What this library is, for rdmabench's reports.
__attribute__((visibility("default"))) const char* rdmabench_gpu_standin() {
  return "HIP stand-in runtime (host memory, no GPU)";
}

const char* hipGetErrorName(hipError_t error) {
  const auto* e = text_of(error);
  return e ? e->name : "hipErrorUnknown";
}

const char* hipGetErrorString(hipError_t error) {
  const auto* e = text_of(error);
  return e ? e->text : "unknown error";
}

hipError_t hipInit(unsigned int flags) { return flags != 0 ? hipErrorInvalidValue : hip_result(initialise()); }

hipError_t hipGetDeviceCount(int* count) {
  if (!state().initialised) return hipErrorNotInitialized;
  *count = state().devices;
  return hipSuccess;
}

hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  if (!valid_device(ordinal)) return state().initialised ? hipErrorInvalidDevice : hipErrorNotInitialized;
  *device = ordinal;
  return hipSuccess;
}

hipError_t hipDeviceGetName(char* name, int length, hipDevice_t device) {
  if (!valid_device(device) || length <= 0) return hipErrorInvalidDevice;
  std::snprintf(name, static_cast<std::size_t>(length), "stand-in GPU %d", device);
  return hipSuccess;
}

// As HIP prints it: "0000:20:00.0".
hipError_t hipDeviceGetPCIBusId(char* bus_id, int length, int device) {
  if (!valid_device(device) || length <= 0) return hipErrorInvalidDevice;
  std::snprintf(bus_id, static_cast<std::size_t>(length), "0000:%02x:00.0", 0x20 + device);
  return hipSuccess;
}

hipError_t hipSetDevice(int device) { return valid_device(device) ? hipSuccess : hipErrorInvalidDevice; }

hipError_t hipMalloc(void** pointer, std::size_t bytes) {
  if (!state().initialised) return hipErrorNotInitialized;
  std::uintptr_t p = 0;
  if (hipError_t e = hip_result(device_alloc(bytes, p)); e != hipSuccess) return e;
  *pointer = reinterpret_cast<void*>(p);
  return hipSuccess;
}

hipError_t hipFree(void* pointer) {
  if (!pointer) return hipSuccess;  // as HIP
  return hip_result(device_free(reinterpret_cast<std::uintptr_t>(pointer)));
}

hipError_t hipMemset(void* destination, int value, std::size_t bytes) {
  return hip_result(device_set(reinterpret_cast<std::uintptr_t>(destination), static_cast<unsigned char>(value),
                               bytes));
}

hipError_t hipMemcpy(void* destination, const void* source, std::size_t bytes, hipMemcpyKind kind) {
  switch (kind) {
    case hipMemcpyHostToDevice:
      return hip_result(copy_to_device(reinterpret_cast<std::uintptr_t>(destination), source, bytes));
    case hipMemcpyDeviceToHost:
      return hip_result(copy_from_device(destination, reinterpret_cast<std::uintptr_t>(source), bytes));
  }
  return hipErrorInvalidValue;  // the plug-in copies one way or the other, never between devices
}

hipError_t hipDeviceSynchronize() { return state().initialised ? hipSuccess : hipErrorNotInitialized; }

hipError_t hipMemGetHandleForAddressRange(void* handle, hipDeviceptr_t pointer, std::size_t bytes,
                                          hipMemRangeHandleType type, unsigned long long flags) {
  if (!state().initialised) return hipErrorNotInitialized;
  if (type != hipMemRangeHandleTypeDmaBufFd || flags != 0 || !handle) return hipErrorInvalidValue;
  return hip_result(export_dmabuf(reinterpret_cast<std::uintptr_t>(pointer), bytes, *static_cast<int*>(handle)));
}

}  // extern "C"
