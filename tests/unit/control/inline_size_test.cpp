// How much inline data a QP asks for: perftest's per-test and per-device
// defaults, -I, and never any from GPU memory.

#include "catch2_compat.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"
#include "control/inline_size.hpp"

using namespace rdmabench;
using detail::DeviceIdentity;
using detail::plan_inline;
using rdmabench::test::MessageContains;
using Tries = std::vector<std::uint32_t>;

namespace {

TestSpec inline_spec_of(Operation operation, Measurement measurement, QpType qp_type = QpType::rc) {
  TestSpec spec;
  spec.operation = operation;
  spec.measurement = measurement;
  spec.qp_type = qp_type;
  return spec;
}

const DeviceIdentity kMlx5{0x02c9, 4129};  // ConnectX-7
const DeviceIdentity kE810{0x8086, 0x1593};
const DeviceIdentity kX722{0x8086, 14289};
const DeviceIdentity kChelsioT6{0x1425, 0x6401};
const DeviceIdentity kRxe{0xffffff, 0};

}  // namespace

TEST_CASE("inline: bandwidth tests, reads and atomics ask for none", "[inline]") {
  for (auto operation : {Operation::write, Operation::send, Operation::read, Operation::atomic}) {
    const auto plan = plan_inline(inline_spec_of(operation, Measurement::bandwidth), std::nullopt, true, kMlx5);
    CHECK(plan.tries == Tries{0});
  }
  CHECK(plan_inline(inline_spec_of(Operation::write, Measurement::bandwidth), std::nullopt, true, kMlx5).reason ==
        "bandwidth test default, as perftest's; -I sets it");
  CHECK(plan_inline(inline_spec_of(Operation::read, Measurement::latency), std::nullopt, true, kMlx5).tries == Tries{0});
  CHECK(plan_inline(inline_spec_of(Operation::atomic, Measurement::latency), std::nullopt, true, kMlx5).tries == Tries{0});
}

TEST_CASE("inline: latency defaults per operation and QP type, falling back when refused", "[inline]") {
  const auto write = plan_inline(inline_spec_of(Operation::write, Measurement::latency), std::nullopt, true, kMlx5);
  CHECK(write.tries == Tries{220, 64, 0});
  CHECK(write.reason == "latency test default, as perftest's");
  CHECK(plan_inline(inline_spec_of(Operation::send, Measurement::latency), std::nullopt, true, kChelsioT6).tries ==
        Tries{236, 64, 0});
  CHECK(plan_inline(inline_spec_of(Operation::send, Measurement::latency, QpType::ud), std::nullopt, true, kRxe)
            .tries == Tries{188, 64, 0});
}

TEST_CASE("inline: devices that take less get perftest's smaller default", "[inline]") {
  const auto e810 = plan_inline(inline_spec_of(Operation::write, Measurement::latency), std::nullopt, true, kE810);
  CHECK(e810.tries == Tries{101, 64, 0});
  CHECK(e810.reason == "latency test default on Intel E810, as perftest's");
  const auto x722 = plan_inline(inline_spec_of(Operation::send, Measurement::latency), std::nullopt, true, kX722);
  CHECK(x722.tries == Tries{48, 0});
  CHECK(plan_inline(inline_spec_of(Operation::write, Measurement::latency), std::nullopt, true, {0x14e4, 5984})
            .tries == Tries{96, 64, 0});
}

TEST_CASE("inline: -I is taken as given", "[inline]") {
  const auto plan = plan_inline(inline_spec_of(Operation::write, Measurement::bandwidth), 128u, true, kMlx5);
  CHECK(plan.tries == Tries{128});
  CHECK(plan.reason == "-I/--inline-size");
}

TEST_CASE("inline: GPU memory is never inlined, and -I with it is refused", "[inline]") {
  const auto spec = inline_spec_of(Operation::write, Measurement::latency);
  const auto plan = plan_inline(spec, std::nullopt, false, kMlx5);
  CHECK(plan.tries == Tries{0});
  CHECK(plan.reason == "GPU memory cannot be inlined");

  REQUIRE_THROWS_MATCHES(detail::check_inline_request(64u, false, "cuda:0", spec), Error,
                         MessageContains("-I/--inline-size 64 cannot be used with --mem cuda:0"));
  REQUIRE_THROWS_MATCHES(
      detail::check_inline_request(64u, false, "cuda:0", inline_spec_of(Operation::send, Measurement::bandwidth)),
      Error, MessageContains("the CPU cannot read GPU memory"));
  CHECK_NOTHROW(detail::check_inline_request(0u, false, "cuda:0", spec));
  CHECK_NOTHROW(detail::check_inline_request(std::nullopt, false, "cuda:0", spec));
  CHECK_NOTHROW(detail::check_inline_request(64u, true, "cuda-host:0", spec));
  // Reads and atomics post no inline data, whatever -I says.
  CHECK_NOTHROW(detail::check_inline_request(64u, false, "cuda:0", inline_spec_of(Operation::read, Measurement::latency)));
}
