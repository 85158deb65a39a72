#pragma once
// What the agreed test needs of this side's queues, settled against the
// device's limits: the one place where a TestSpec becomes verbs sizes.
// Pure, so that a plan can be made and checked without a device.

#include "rdmabench/control/role.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/verbs/connection.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench::detail {

/// The queue pairs `role` makes for `spec`: -q's, except that a multicast
/// server makes one per receiver (-g N) while its client sends from one.
std::uint32_t queue_pairs_on(const TestSpec& spec, Role role);

/// The plan for `spec` on the `role` side, on `port` (device name for messages, transport for
/// the receive depth and access flags) within `limits`. Throws an Error
/// naming the option and the limit when the device cannot carry the test
/// ("-q/--qp 1024 with -t/--tx-depth 128 needs 131,073 completion entries
/// in one CQ (QPs x depth + 1); rxe0 allows 32,767"). `memory_cpu_readable`: false for GPU
/// memory, which is never inlined.
ConnectionPlan plan_connection(const TestSpec& spec, Role role, const QpOptions& options,
                               const PortAttributes& port, const Transport& transport,
                               const DeviceLimits& limits, bool memory_cpu_readable);

}  // namespace rdmabench::detail
