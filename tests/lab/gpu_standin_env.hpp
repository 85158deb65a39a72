#pragma once
// The environment that makes our binaries use the CUDA stand-in driver
// (tests/cuda_standin) with one "GPU" whose memory the CPU cannot touch once
// registered, as a GPU's; set for one scope, inherited by the pairs started
// in it.
#include "../scoped_env.hpp"

namespace lab {

struct GuardedCudaStandin {
  using ScopedEnv = rdmabench::test::ScopedEnv;
  ScopedEnv driver{"RDMABENCH_CUDA_DRIVER", RDMABENCH_CUDA_STANDIN};
  ScopedEnv devices{"CUDA_STANDIN_DEVICES", "1"};
  // Preloaded too, so that it sees registrations and can guard them.
  ScopedEnv preload{"LD_PRELOAD", RDMABENCH_CUDA_STANDIN};
  ScopedEnv no_cpu{"CUDA_STANDIN_CPU_ACCESS", "none"};
  // In a sanitizer build the runtime must come first; a preload is after it.
  ScopedEnv asan{"ASAN_OPTIONS", "verify_asan_link_order=0"};
};

}  // namespace lab
