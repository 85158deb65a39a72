// The stand-ins' "device memory": ordinary host memory behind the calls a
// GPU runtime makes on its memory, checked as a runtime would check them
// (inside one allocation, page-aligned exports) and counted, so that tests
// can prove that nothing leaks.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "standin_state.hpp"

namespace gpu_standin {

State& state() {
  static State s;
  return s;
}

Outcome initialise() {
  State& s = state();
  std::lock_guard g(s.lock);
  s.devices = knob_int("DEVICES", 1);
  if (s.devices <= 0) return Outcome::no_device;
  if (!guard_ready()) return Outcome::not_initialised;
  if (s.devices > 16) s.devices = 16;
  s.initialised = true;
  return Outcome::ok;
}

Outcome device_alloc(std::size_t bytes, std::uintptr_t& pointer) {
  if (bytes == 0) return Outcome::invalid;
  // Real allocations are at least 2 MiB-aligned for large sizes; 64 KiB is
  // what GPUDirect RDMA relies on. Whole pages of their own, so that the
  // guard can take the CPU's access away from exactly these.
  constexpr std::size_t kAlign = 64 << 10;
  const std::size_t length = (bytes + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, length);
  if (!p) return Outcome::out_of_memory;
  std::memset(p, 0xa5, bytes);  // device memory is not zeroed: neither is ours
  State& s = state();
  std::lock_guard g(s.lock);
  pointer = reinterpret_cast<std::uintptr_t>(p);
  s.device_memory[pointer] = {bytes, length};
  return Outcome::ok;
}

Outcome device_free(std::uintptr_t pointer) {
  State& s = state();
  std::lock_guard g(s.lock);
  const auto it = s.device_memory.find(pointer);
  if (it == s.device_memory.end()) return Outcome::invalid;
  give_cpu_access(it->first, it->second);  // free() writes its bookkeeping
  s.device_memory.erase(it);
  std::free(reinterpret_cast<void*>(pointer));
  return Outcome::ok;
}

Outcome device_set(std::uintptr_t pointer, unsigned char value, std::size_t bytes) {
  State& s = state();
  std::lock_guard g(s.lock);
  if (!inside(s.device_memory, pointer, bytes)) return Outcome::invalid;
  as_the_driver(s, pointer, [&] { std::memset(reinterpret_cast<void*>(pointer), value, bytes); });
  return Outcome::ok;
}

Outcome copy_to_device(std::uintptr_t to, const void* from, std::size_t bytes) {
  State& s = state();
  std::lock_guard g(s.lock);
  if (!inside(s.device_memory, to, bytes)) return Outcome::invalid;
  as_the_driver(s, to, [&] { std::memcpy(reinterpret_cast<void*>(to), from, bytes); });
  return Outcome::ok;
}

Outcome copy_from_device(void* to, std::uintptr_t from, std::size_t bytes) {
  State& s = state();
  std::lock_guard g(s.lock);
  if (!inside(s.device_memory, from, bytes)) return Outcome::invalid;
  as_the_driver(s, from, [&] { std::memcpy(to, reinterpret_cast<const void*>(from), bytes); });
  return Outcome::ok;
}

Outcome export_dmabuf(std::uintptr_t pointer, std::size_t bytes, int& fd) {
  const char* mode = knob("DMABUF");
  if (mode && std::strcmp(mode, "fail") == 0) return Outcome::not_supported;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  State& s = state();
  std::lock_guard g(s.lock);
  if (pointer % page != 0 || bytes % page != 0 || !inside(s.device_memory, pointer, bytes)) return Outcome::invalid;
  fd = ::memfd_create("gpu-standin-dmabuf", MFD_CLOEXEC);
  if (fd < 0) return Outcome::out_of_memory;
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    ::close(fd);
    return Outcome::out_of_memory;
  }
  return Outcome::ok;
}

Outcome host_alloc(std::size_t bytes, void*& pointer) {
  void* p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p) return Outcome::out_of_memory;
  State& s = state();
  std::lock_guard g(s.lock);
  s.host_memory[reinterpret_cast<std::uintptr_t>(p)] = {bytes, bytes};
  pointer = p;
  return Outcome::ok;
}

Outcome host_free(void* pointer) {
  State& s = state();
  std::lock_guard g(s.lock);
  if (s.host_memory.erase(reinterpret_cast<std::uintptr_t>(pointer)) == 0) return Outcome::invalid;
  std::free(pointer);
  return Outcome::ok;
}

int outstanding() {
  State& s = state();
  std::lock_guard g(s.lock);
  int n = static_cast<int>(s.device_memory.size() + s.host_memory.size());
  for (const auto& c : s.contexts) n += c.retained;
  return n;
}

}  // namespace gpu_standin

extern "C" {

/// Allocations and retained contexts not yet given back (the unit tests ask).
__attribute__((visibility("default"))) int rdmabench_gpu_standin_outstanding() {
  return gpu_standin::outstanding();
}

}  // extern "C"
