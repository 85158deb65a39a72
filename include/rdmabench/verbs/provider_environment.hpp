#pragma once
// Settings that verbs providers read from the environment when a device is
// opened, chosen for the memory a run uses.

#include <functional>
#include <string>

namespace rdmabench {

/// With memory the CPU cannot touch (GPU memory), libmlx5 must not copy
/// small received messages from the completion into the receive buffer
/// with the CPU ("scatter to CQE", on by default for messages up to the CQE
/// size): on a GPU buffer that copy faults. Sets MLX5_SCATTER_TO_CQE=0, as
/// perftest and NVSHMEM do, before any device is opened; a different value
/// the user set is overridden and `notice` says so. Host memory: nothing.
/// Other providers ignore the variable.
void keep_receive_copies_off_the_cpu(bool memory_cpu_accessible,
                                     const std::function<void(const std::string&)>& notice);

}  // namespace rdmabench
