#pragma once
// Which timed loop runs a test, from a table keyed by what decides it:
// the measurement, the operation, whether the target reaps a receive per
// message, this side's role, the QP type, open or closed loop, and one or
// both directions. As UCX perftest's function table and nccl-tests'
// per-collective struct, a new loop is a row, not another branch.

#include <cstdint>
#include <optional>
#include <span>

#include "rdmabench/control/role.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/report/result.hpp"
#include "rdmabench/system/clock.hpp"
#include "loops/loop_view.hpp"

namespace rdmabench::detail {

using LoopFunction = SizeResult (*)(const LoopView&, std::uint64_t bytes, const ClockInfo&);

/// What a spec and a role say about the loop to run.
struct LoopKey {
  Measurement measurement;
  Operation operation;
  bool receives;  ///< the target reaps a receive per message (sends, writes with immediate)
  Role role;
  QpType qp_type;
  bool open_loop;  ///< --rate on a latency test
  bool bidirectional;
};
LoopKey loop_key(const TestSpec& spec, Role role);

/// One row: the conditions (empty: any) and the loop they choose.
struct LoopEntry {
  const char* name;  ///< for tests and for the reader: "send bandwidth, receiving side"
  LoopFunction run;
  Measurement measurement;
  std::optional<Operation> operation;
  std::optional<bool> receives;
  std::optional<Role> role;
  std::optional<QpType> qp_type;
  std::optional<bool> open_loop;
  std::optional<bool> bidirectional;

  bool matches(const LoopKey& key) const;
};

/// Every row, most specific first: the first that matches is chosen.
std::span<const LoopEntry> loop_table();

/// The row for `spec` on this side's `role`. Throws if none matches (a
/// spec find_unsupported lets through and no loop runs is a bug).
const LoopEntry& choose_loop(const TestSpec& spec, Role role);

/// Runs this size's loop for the view's spec and role.
SizeResult measure(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

/// measure(), with the background load of --load-qps streaming on the
/// client from before the latency's loop until after it (loops/load_stream.cpp).
SizeResult measure_under_load(const LoopView& view, std::uint64_t bytes, const ClockInfo& clock);

}  // namespace rdmabench::detail
