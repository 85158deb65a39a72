// gpu_check: the GPU half of tools/gpu-check. On a machine with a GPU it
// allocates device memory (cuda:N or rocm:N) through rdmabench's CUDA or
// ROCm plug-in, exports it as a dma-buf, checks patterns through device
// copies and, when an RDMA device is present, registers the memory by each
// path. One line per check: PASS/FAIL/SKIP and why. Exit 0: all passed; 1: a
// check failed; 77: no CUDA driver, HIP runtime or GPU (nothing could be
// checked).
#include <infiniband/verbs.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "memory/gpu/gpu_device_memory.hpp"
#include "rdmabench/verbs/device.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/memory/memory.hpp"
#include "rdmabench/engine/pattern.hpp"

using namespace rdmabench;

namespace {

int failures = 0;

void report(const char* verdict, const std::string& what, const std::string& detail = {}) {
  std::printf("%-4s %s%s%s\n", verdict, what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
  if (std::strcmp(verdict, "FAIL") == 0) ++failures;
}

void check_patterns(gpu::GpuDeviceMemory& memory, const Buffer& buffer) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, std::size_t{65537}, buffer.size()}) {
    for (std::uint32_t pass = 0; pass < 2; ++pass) {
      std::vector<std::byte> out(bytes), back(bytes);
      fill_pattern(out, pass);
      memory.copy_in(buffer, out);
      memory.copy_out(buffer, back);
      if (auto problem = check_pattern(back, pass)) {
        report("FAIL", "pattern through the device copies", *problem);
        return;
      }
    }
  }
  report("PASS", "patterns of 1 B to " + std::to_string(buffer.size()) + " B through the device copies");
}

void check_dmabuf_export(const gpu::GpuDeviceMemory& memory, const Buffer& buffer) {
  const auto exported = memory.export_dmabuf(reinterpret_cast<std::uintptr_t>(buffer.data()), buffer.size());
  if (!exported.failure.empty()) {
    report("FAIL", "dma-buf export", exported.failure + " (" + memory.registration_hints().dmabuf_needs + ")");
    return;
  }
  ::close(exported.fd);
  report("PASS", "dma-buf export of " + std::to_string(buffer.size()) + " B (fd " + std::to_string(exported.fd) +
                     ")");
}

/// The GPU's runtime is absent, or sees no GPU: nothing GPU-side can be checked.
bool absent(const Error& e) {
  for (const char* why : {"no CUDA driver", "no CUDA device", "no HIP runtime", "no ROCm device"})
    if (std::strstr(e.what(), why)) return true;
  return false;
}

/// Each registration path on its own, on the first RDMA device; one that
/// works is enough for GPUDirect RDMA, so only none working fails.
void check_registration(const MemoryChoice& base) {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (!list || count == 0) {
    if (list) ibv_free_device_list(list);
    report("SKIP", "registration with a NIC", "no RDMA device (ibv_devices lists none)");
    return;
  }
  const std::string name = ibv_get_device_name(list[0]);
  ibv_free_device_list(list);
  Context context = open_device(name);
  ProtectionDomain pd(ibv_alloc_pd(context.get()));
  if (!pd) {
    report("FAIL", "ibv_alloc_pd on " + name, std::strerror(errno));
    return;
  }
  std::string unavailable;
  for (auto [mode, label] : {std::pair{GdrMode::dmabuf, "dmabuf"}, std::pair{GdrMode::peermem, "peermem"}}) {
    MemoryChoice choice = base;
    choice.gdr = mode;
    try {
      auto memory = make_memory_provider(choice);
      Buffer buffer = memory->allocate(1 << 20);
      [[maybe_unused]] auto registration = memory->register_buffer(pd.get(), buffer,
                                                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
      report("PASS", std::string("registration by ") + label + " on " + name);
    } catch (const Error& e) {
      report("INFO", std::string("registration by ") + label + " on " + name + " unavailable", e.what());
      unavailable += label;
    }
  }
  if (unavailable == "dmabufpeermem") report("FAIL", "registration with " + name, "neither path works");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string memory_name = argc > 1 ? argv[1] : "cuda:0";
  MemoryChoice choice;
  try {
    choice = parse_memory_choice(memory_name);
    if (!choice.is_gpu_device()) {
      report("FAIL", memory_name, "not GPU device memory: give cuda:N or rocm:N");
      return 1;
    }
    auto provider = make_memory_provider(choice);
    auto& memory = dynamic_cast<gpu::GpuDeviceMemory&>(*provider);
    report("INFO", memory.runtime());
    report("PASS", memory.name() + " is " + memory.device_description());
    Buffer buffer = memory.allocate(4 << 20);
    std::vector<std::byte> fresh(buffer.size());
    memory.copy_out(buffer, fresh);
    const bool zeroed = fresh == std::vector<std::byte>(buffer.size());
    report(zeroed ? "PASS" : "FAIL", "allocation of " + std::to_string(buffer.size()) + " B, zeroed");
    check_patterns(memory, buffer);
    check_dmabuf_export(memory, buffer);
  } catch (const Error& e) {
    report(absent(e) ? "SKIP" : "FAIL", "GPU checks", e.what());
    if (absent(e)) return 77;
  }
  try {
    if (failures == 0) check_registration(choice);
  } catch (const Error& e) {
    report("FAIL", "registration with a NIC", e.what());
  }
  return failures ? 1 : 0;
}
