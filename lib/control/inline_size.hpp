#pragma once
// How much inline data a queue pair asks for, and why: perftest's per-test
// and per-device defaults, -I, and the memory the sends come from.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/control/test_spec.hpp"

namespace rdmabench::detail {

/// The device as ibv_query_device names it (vendor_id, vendor_part_id).
struct DeviceIdentity {
  std::uint32_t vendor_id = 0;
  std::uint32_t part_id = 0;
};

/// The amounts to ask for, largest first: providers cap inline data
/// differently and say so only by failing to create the QP.
struct InlinePlan {
  std::vector<std::uint32_t> tries;
  std::string reason;  ///< printed after the size: "GPU memory cannot be inlined"
};

/// Refuses -I N (N > 0) for writes or sends from memory the CPU cannot read:
/// the provider would copy inline data from it with the CPU.
void check_inline_request(std::optional<std::uint32_t> requested, bool memory_cpu_readable,
                          const std::string& memory_name, const TestSpec& spec);

/// What to ask for. Memory the CPU cannot read is never inlined; -I is
/// taken as given; otherwise perftest's defaults: nothing for bandwidth
/// tests, reads and atomics; for latency 220 B for writes, 236 B for RC/UC
/// sends and 188 B for UD sends, less on the devices perftest knows to take
/// less (Intel E810 101 B, X722 48 B, Broadcom NetXtreme 96 B).
InlinePlan plan_inline(const TestSpec& spec, std::optional<std::uint32_t> requested,
                       bool memory_cpu_readable, DeviceIdentity device);

}  // namespace rdmabench::detail
