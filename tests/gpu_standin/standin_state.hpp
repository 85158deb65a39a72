#pragma once
// What the GPU stand-ins share (tests/gpu_standin: libcuda-standin.so for
// the CUDA driver, libhip-standin.so for the HIP runtime): their
// bookkeeping, the "device memory" operations behind their entry points
// (standin_memory.cpp) and the guard that takes the CPU's access to that
// memory away once it is registered (device_memory_guard.cpp). Each stand-in
// maps these onto its vendor's calls and error codes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace gpu_standin {

struct Context {  ///< a CUDA primary context (HIP has none)
  int device = 0;
  int retained = 0;
};

struct Allocation {
  std::size_t bytes = 0;   ///< what the caller asked for
  std::size_t length = 0;  ///< whole pages from the start: what the guard protects
  bool guarded = false;    ///< registered and out of the CPU's reach
};

struct State {
  std::mutex lock;
  bool initialised = false;
  int devices = 0;
  Context contexts[16];
  std::map<std::uintptr_t, Allocation> device_memory;  ///< by start address
  std::map<std::uintptr_t, Allocation> host_memory;
};

/// This stand-in's state. Not inline: GCC gives an inline function's
/// static a process-wide (STB_GNU_UNIQUE) symbol, which the two stand-ins,
/// both loaded by the unit tests, would then share.
State& state();

// The stand-in's own (cuda_standin.cpp, hip_standin.cpp):

/// The prefix of its knobs: "CUDA_STANDIN_" or "HIP_STANDIN_".
const char* knob_prefix();

/// The value of knob `name` ("DEVICES" is CUDA_STANDIN_DEVICES), or null.
inline const char* knob(const char* name) { return std::getenv((std::string(knob_prefix()) + name).c_str()); }

inline int knob_int(const char* name, int fallback) {
  const char* v = knob(name);
  return v && *v ? std::atoi(v) : fallback;
}

/// The allocation of `memory` that holds [address, address + length), or null.
inline Allocation* find(std::map<std::uintptr_t, Allocation>& memory, std::uintptr_t address,
                        std::size_t length) {
  auto it = memory.upper_bound(address);
  if (it == memory.begin()) return nullptr;
  --it;
  return address + length <= it->first + it->second.bytes ? &it->second : nullptr;
}

inline bool inside(std::map<std::uintptr_t, Allocation>& memory, std::uintptr_t address, std::size_t length) {
  return find(memory, address, length) != nullptr;
}

// standin_memory.cpp: what a GPU's runtime does to its memory, over host
// memory. Each takes the lock itself.

enum class Outcome { ok, invalid, out_of_memory, not_supported, no_device, not_initialised };

/// Reads the DEVICES knob (default 1; 0: no_device, as on a machine with a
/// driver and no GPU) and readies the guard (not_initialised if it cannot).
Outcome initialise();
/// 64 KiB-aligned whole pages, filled with 0xa5 (device memory is not zeroed).
Outcome device_alloc(std::size_t bytes, std::uintptr_t& pointer);
Outcome device_free(std::uintptr_t pointer);
Outcome device_set(std::uintptr_t pointer, unsigned char value, std::size_t bytes);
Outcome copy_to_device(std::uintptr_t to, const void* from, std::size_t bytes);
Outcome copy_from_device(void* to, std::uintptr_t from, std::size_t bytes);
/// A dma-buf of a page-aligned range inside one allocation: with the
/// DMABUF knob at "memfd" (default) a memfd, which is no dma-buf, so
/// ibv_reg_dmabuf_mr is tried and refused; at "fail", not_supported.
Outcome export_dmabuf(std::uintptr_t pointer, std::size_t bytes, int& fd);
Outcome host_alloc(std::size_t bytes, void*& pointer);
Outcome host_free(void* pointer);
/// Allocations and retained contexts not yet given back.
int outstanding();

// device_memory_guard.cpp:

/// False (and says why on stderr) when the CPU_ACCESS knob is "none" but the
/// guard cannot work (the library was not preloaded).
bool guard_ready();

/// Gives the CPU its access back to the allocation at `start` (before free).
void give_cpu_access(std::uintptr_t start, Allocation& a);

/// Lends (or takes back) the CPU's access to the guarded allocation that
/// holds `address`; nothing for unguarded memory. Call with s.lock held.
void lend_cpu_access(State& s, std::uintptr_t address, bool lend);

/// Runs `copy` (the driver's own access to device memory at `address`,
/// which a GPU's driver does by DMA) with the CPU's access lent for its
/// duration. Call with s.lock held.
template <typename Copy>
void as_the_driver(State& s, std::uintptr_t address, Copy copy) {
  lend_cpu_access(s, address, true);
  copy();
  lend_cpu_access(s, address, false);
}

}  // namespace gpu_standin
