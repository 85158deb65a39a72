#include "rdmabench/verbs/provider_environment.hpp"

#include <cstdlib>
#include <cstring>

namespace rdmabench {

void keep_receive_copies_off_the_cpu(bool memory_cpu_accessible,
                                     const std::function<void(const std::string&)>& notice) {
  if (memory_cpu_accessible) return;
  constexpr const char* kName = "MLX5_SCATTER_TO_CQE";
  const char* before = std::getenv(kName);
  if (before && std::strcmp(before, "0") != 0)
    notice(std::string(kName) + "=" + before + " overridden to 0: the provider would copy small receives "
           "into GPU memory with the CPU");
  ::setenv(kName, "0", 1);
}

}  // namespace rdmabench
