// gpu_check: the GPU half of tools/gpu-check. On a machine with a GPU it
// allocates device memory through rdmabench's CUDA plug-in, exports it as a
// dma-buf, checks patterns through device copies and, when an RDMA device is
// present, registers the memory by each path. One line per check:
// PASS/FAIL/SKIP and why. Exit 0: all passed; 1: a check failed; 77: no
// CUDA driver or GPU (nothing could be checked).
#include <infiniband/verbs.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "memory/cuda/cuda_driver.hpp"
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

void check_patterns(MemoryProvider& memory, const Buffer& buffer) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, std::size_t{65537}, buffer.size()}) {
    for (std::uint32_t pass = 0; pass < 2; ++pass) {
      std::vector<std::byte> out(bytes), back(bytes);
      fill_pattern(out, pass);
      memory.copy_in(buffer, out);
      memory.copy_out(buffer, back);
      if (auto problem = check_pattern(back, pass)) {
        report("FAIL", "pattern through cuMemcpyHtoD/DtoH", *problem);
        return;
      }
    }
  }
  report("PASS", "patterns of 1 B to " + std::to_string(buffer.size()) + " B through cuMemcpyHtoD/DtoH");
}

void check_dmabuf_export(const cuda::Driver& driver, const Buffer& buffer) {
  const auto get_handle = driver.api().mem_get_handle_for_address_range;
  if (!get_handle) {
    report("FAIL", "dma-buf export", "the driver has no cuMemGetHandleForAddressRange (older than CUDA 11.7)");
    return;
  }
  int fd = -1;
  const CUresult r = get_handle(&fd, reinterpret_cast<CUdeviceptr>(buffer.data()), buffer.size(),
                                CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
  if (r != CUDA_SUCCESS) {
    report("FAIL", "dma-buf export", driver.describe(r, "cuMemGetHandleForAddressRange") +
                                         " (needs the NVIDIA open kernel module and Linux 5.12+)");
    return;
  }
  ::close(fd);
  report("PASS", "dma-buf export of " + std::to_string(buffer.size()) + " B (fd " + std::to_string(fd) + ")");
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
    auto driver = cuda::Driver::load(memory_name, std::to_string(choice.cuda_device));
    report("INFO", "CUDA driver " + driver->library() +
                       (driver->standin().empty() ? "" : " -- a " + driver->standin() + ", NOT a GPU"));
    auto memory = make_memory_provider(choice);
    report("PASS", memory->name() + " is " + memory->device_description());
    Buffer buffer = memory->allocate(4 << 20);
    std::vector<std::byte> fresh(buffer.size());
    memory->copy_out(buffer, fresh);
    const bool zeroed = fresh == std::vector<std::byte>(buffer.size());
    report(zeroed ? "PASS" : "FAIL", "cuMemAlloc of " + std::to_string(buffer.size()) + " B, zeroed by cuMemsetD8");
    check_patterns(*memory, buffer);
    check_dmabuf_export(*driver, buffer);
  } catch (const Error& e) {
    const bool absent = std::strstr(e.what(), "no CUDA driver") || std::strstr(e.what(), "no CUDA device");
    report(absent ? "SKIP" : "FAIL", "GPU checks", e.what());
    if (absent) return 77;
  }
  try {
    if (failures == 0) check_registration(choice);
  } catch (const Error& e) {
    report("FAIL", "registration with a NIC", e.what());
  }
  return failures ? 1 : 0;
}
