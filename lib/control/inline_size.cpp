#include "control/inline_size.hpp"

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

namespace {

constexpr std::uint32_t kIntelVendor = 0x8086;
constexpr std::uint32_t kIntelX722Part = 14289;  // iWARP "gen1"; every other Intel part is E810-like
constexpr std::uint32_t kBroadcomVendor = 0x14e4;

bool posts_inline_capable(const TestSpec& spec) {
  return spec.operation == Operation::write || spec.operation == Operation::send;
}

/// perftest's latency default for the operation (perftest_parameters.c,
/// ctx_set_max_inline), with its device name.
std::pair<std::uint32_t, std::string> latency_default(const TestSpec& spec, DeviceIdentity device) {
  if (device.vendor_id == kIntelVendor)
    return device.part_id == kIntelX722Part ? std::pair{48u, std::string("Intel X722")}
                                            : std::pair{101u, std::string("Intel E810")};
  if (device.vendor_id == kBroadcomVendor) return {96u, "Broadcom NetXtreme"};
  if (spec.operation == Operation::write) return {220u, ""};
  return {spec.qp_type == QpType::ud ? 188u : 236u, ""};
}

}  // namespace

void check_inline_request(std::optional<std::uint32_t> requested, bool memory_cpu_readable,
                          const std::string& memory_name, const TestSpec& spec) {
  require(memory_cpu_readable || !requested || *requested == 0 || !posts_inline_capable(spec),
          fmt::format("-I/--inline-size {} cannot be used with --mem {}: inline data is copied "
                      "by the CPU when posting, and the CPU cannot read GPU memory",
                      requested.value_or(0), memory_name),
          "drop -I (GPU memory is never inlined), or use --mem host or cuda-host:N on this side");
}

InlinePlan plan_inline(const TestSpec& spec, std::optional<std::uint32_t> requested,
                       bool memory_cpu_readable, DeviceIdentity device) {
  if (!memory_cpu_readable) return {{0}, "GPU memory cannot be inlined"};
  if (requested) return {{*requested}, "-I/--inline-size"};
  if (!posts_inline_capable(spec)) return {{0}, "reads and atomics carry no inline data"};
  if (spec.measurement == Measurement::bandwidth)
    return {{0}, "bandwidth test default, as perftest's; -I sets it"};
  const auto [bytes, device_name] = latency_default(spec, device);
  InlinePlan plan;
  // Down to 64 and 0 when the provider takes less than perftest's default.
  for (std::uint32_t b : {bytes, 64u, 0u})
    if (b <= bytes && (plan.tries.empty() || b < plan.tries.back())) plan.tries.push_back(b);
  plan.reason = device_name.empty()
                    ? "latency test default, as perftest's"
                    : fmt::format("latency test default on {}, as perftest's", device_name);
  return plan;
}

}  // namespace rdmabench::detail
