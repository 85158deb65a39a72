// The stand-ins' "device memory" made as unreachable to the CPU as a GPU's:
// with CUDA_STANDIN_CPU_ACCESS=none (HIP_STANDIN_CPU_ACCESS=none for the HIP
// stand-in), once an allocation is registered for RDMA its pages are
// mprotect(PROT_NONE)ed. The kernel keeps the pages it
// pinned at registration, so the RDMA device still reads and writes them;
// any user-space touch (a provider's inline copy, a scatter-to-CQE copy, a
// CPU check of the pattern) faults, as it would on a GPU.
//
// The registration is seen by interposing ibv_reg_mr and ibv_reg_mr_iova2,
// so the library must be preloaded as well as named as the driver:
//   LD_PRELOAD=libcuda-standin.so RDMABENCH_CUDA_DRIVER=libcuda-standin.so
//   LD_PRELOAD=libhip-standin.so RDMABENCH_HIP_RUNTIME=libhip-standin.so
// (dlopen of the same path then finds the preloaded copy). One stand-in at
// a time: the first preloaded would see every registration.
#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstring>

#include "standin_state.hpp"

struct ibv_pd;
struct ibv_mr;

namespace gpu_standin {

namespace {

bool wanted() {
  const char* v = knob("CPU_ACCESS");
  return v && std::strcmp(v, "none") == 0;
}

void protect(std::uintptr_t start, const Allocation& a, int protection) {
  if (::mprotect(reinterpret_cast<void*>(start), a.length, protection) != 0) {
    std::perror("gpu stand-in: mprotect of device memory");
    std::abort();  // a guard that silently does nothing would prove nothing
  }
}

/// After a successful registration: device memory in [address, +length)
/// leaves the CPU's reach.
void guard_after_registration(const void* address, std::size_t length) {
  if (!wanted() || !address) return;
  State& s = state();
  std::lock_guard g(s.lock);
  const auto start = reinterpret_cast<std::uintptr_t>(address);
  Allocation* a = find(s.device_memory, start, length);
  if (!a || a->guarded) return;
  auto it = s.device_memory.upper_bound(start);
  --it;
  protect(it->first, *a, PROT_NONE);
  a->guarded = true;
}

template <typename Function>
Function next(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

bool guard_ready() {
  if (!wanted()) return true;
  // The interposer is in effect only if the process resolves ibv_reg_mr to
  // this library's definition, i.e. this library was preloaded.
  Dl_info where{}, self{};
  const void* resolved = ::dlsym(RTLD_DEFAULT, "ibv_reg_mr");
  const bool ours = resolved && ::dladdr(resolved, &where) && ::dladdr(reinterpret_cast<void*>(&guard_ready), &self) &&
                    where.dli_fbase == self.dli_fbase;
  if (!ours)
    std::fprintf(stderr, "gpu stand-in: %sCPU_ACCESS=none needs the stand-in preloaded "
                         "(LD_PRELOAD=<it>) so that it sees registrations\n", knob_prefix());
  return ours;
}

void give_cpu_access(std::uintptr_t start, Allocation& a) {
  if (a.guarded) protect(start, a, PROT_READ | PROT_WRITE);
  a.guarded = false;
}

void lend_cpu_access(State& s, std::uintptr_t address, bool lend) {
  auto it = s.device_memory.upper_bound(address);
  if (it == s.device_memory.begin()) return;
  --it;
  if (it->second.guarded) protect(it->first, it->second, lend ? PROT_READ | PROT_WRITE : PROT_NONE);
}

}  // namespace gpu_standin

extern "C" {

__attribute__((visibility("default"))) ibv_mr* ibv_reg_mr(ibv_pd* pd, void* address, std::size_t length,
                                                          int access) {
  static const auto real = gpu_standin::next<ibv_mr* (*)(ibv_pd*, void*, std::size_t, int)>("ibv_reg_mr");
  ibv_mr* mr = real(pd, address, length, access);
  if (mr) gpu_standin::guard_after_registration(address, length);
  return mr;
}

__attribute__((visibility("default"))) ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* address, std::size_t length,
                                                                std::uint64_t iova, unsigned int access) {
  static const auto real = gpu_standin::next<ibv_mr* (*)(ibv_pd*, void*, std::size_t, std::uint64_t, unsigned int)>(
      "ibv_reg_mr_iova2");
  ibv_mr* mr = real(pd, address, length, iova, access);
  if (mr) gpu_standin::guard_after_registration(address, length);
  return mr;
}

}  // extern "C"
