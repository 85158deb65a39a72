#pragma once
// The environment that makes our binaries use a GPU stand-in
// (tests/gpu_standin: the CUDA driver's or the HIP runtime's entry points
// over host memory) with one "GPU" whose memory the CPU cannot touch once
// registered, as a GPU's; set for one scope, inherited by the pairs started
// in it.
#include "../scoped_env.hpp"

namespace lab {

/// One GPU plug-in on its stand-in: the memory to ask for, where the
/// stand-in is, and the variables that load and steer it.
struct StandinGpu {
  const char* memory;      ///< "cuda:0", "rocm:0"
  const char* pci;         ///< where its GPU 0 says it sits (no such device in sysfs)
  const char* library;     ///< the stand-in's path
  const char* loader;      ///< what names the library to load in its vendor's place
  const char* devices;     ///< its knobs (tests/gpu_standin/standin_state.hpp)
  const char* cpu_access;
  const char* dmabuf;
};

#ifdef RDMABENCH_CUDA_STANDIN
inline const StandinGpu kCudaStandin{"cuda:0", "0000:10:00.0", RDMABENCH_CUDA_STANDIN, "RDMABENCH_CUDA_DRIVER",
                                     "CUDA_STANDIN_DEVICES", "CUDA_STANDIN_CPU_ACCESS", "CUDA_STANDIN_DMABUF"};
#endif
inline const StandinGpu kHipStandin{"rocm:0", "0000:20:00.0", RDMABENCH_HIP_STANDIN, "RDMABENCH_HIP_RUNTIME",
                                    "HIP_STANDIN_DEVICES", "HIP_STANDIN_CPU_ACCESS", "HIP_STANDIN_DMABUF"};

class GuardedStandin {
 public:
  explicit GuardedStandin(const StandinGpu& gpu)
      : loader_(gpu.loader, gpu.library),
        devices_(gpu.devices, "1"),
        // Preloaded too, so that it sees registrations and can guard them.
        preload_("LD_PRELOAD", gpu.library),
        no_cpu_(gpu.cpu_access, "none") {}

 private:
  using ScopedEnv = rdmabench::test::ScopedEnv;
  ScopedEnv loader_, devices_, preload_, no_cpu_;
  // In a sanitizer build the runtime must come first; a preload is after it.
  ScopedEnv asan_{"ASAN_OPTIONS", "verify_asan_link_order=0"};
};

#ifdef RDMABENCH_CUDA_STANDIN
struct GuardedCudaStandin : GuardedStandin {
  GuardedCudaStandin() : GuardedStandin(kCudaStandin) {}
};
#endif

}  // namespace lab
