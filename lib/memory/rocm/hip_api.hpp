#pragma once
// The few declarations of AMD's HIP runtime API (libamdhip64.so) that the
// ROCm plug-in and its test stand-in use. Declared here, not included from
// ROCm's <hip/hip_runtime_api.h>, so that the plug-in builds everywhere with
// no ROCm installed; nothing links against them (the plug-in dlopens the
// runtime and types its pointers with these prototypes, and the stand-in
// defines them, so that a mismatch between the two is a compile error).
//
// Each prototype and value is as the HIP runtime API reference gives it
// (https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/ : modules
// "Error Handling", "Initialization and Version", "Device Management",
// "Memory Management"), and as <hip/hip_runtime_api.h> and
// <hip/driver_types.h> of ROCm 5.x and 6.x declare them for AMD GPUs.

#include <cstddef>

extern "C" {

/// hipError_t: the values we name; every other one prints through
/// hipGetErrorName/hipGetErrorString.
enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorNotSupported = 801,
};

/// hipDevice_t: a device handle (on AMD, the ordinal).
typedef int hipDevice_t;
/// hipDeviceptr_t: a device address.
typedef void* hipDeviceptr_t;

enum hipMemcpyKind {
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
};

/// hipMemRangeHandleType, for hipMemGetHandleForAddressRange.
enum hipMemRangeHandleType {
  hipMemRangeHandleTypeDmaBufFd = 1,
};

const char* hipGetErrorName(hipError_t error);
const char* hipGetErrorString(hipError_t error);
hipError_t hipInit(unsigned int flags);
hipError_t hipGetDeviceCount(int* count);
hipError_t hipDeviceGet(hipDevice_t* device, int ordinal);
hipError_t hipDeviceGetName(char* name, int length, hipDevice_t device);
hipError_t hipDeviceGetPCIBusId(char* bus_id, int length, int device);
hipError_t hipSetDevice(int device);
hipError_t hipMalloc(void** pointer, std::size_t bytes);
hipError_t hipFree(void* pointer);
hipError_t hipMemset(void* destination, int value, std::size_t bytes);
hipError_t hipMemcpy(void* destination, const void* source, std::size_t bytes, hipMemcpyKind kind);
hipError_t hipDeviceSynchronize();
/// Absent from older ROCm releases: then only peer memory can work.
hipError_t hipMemGetHandleForAddressRange(void* handle, hipDeviceptr_t pointer, std::size_t bytes,
                                          hipMemRangeHandleType type, unsigned long long flags);

}  // extern "C"
