#pragma once
// The stand-in driver's bookkeeping, shared by its entry points
// (cuda_standin.cpp) and by the guard that takes the CPU's access to
// "device memory" away (device_memory_guard.cpp).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

namespace cuda_standin {

struct Context {
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

inline State& state() {
  static State s;
  return s;
}

// initial-exec: in the static TLS block glibc keeps for dlopened libraries,
// not in dynamic TLS, whose entries GCC 12's LeakSanitizer misreads at
// exit (it crashed the sanitizer unit tier: "Tracer caught signal 11",
// after a DTLS range starting at 0x5dc1).
inline thread_local Context* current __attribute__((tls_model("initial-exec"))) = nullptr;

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
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

// device_memory_guard.cpp:

/// False (and says why on stderr) when CUDA_STANDIN_CPU_ACCESS=none is asked
/// for but the guard cannot work (the library was not preloaded).
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

}  // namespace cuda_standin
