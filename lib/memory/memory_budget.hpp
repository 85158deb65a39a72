#pragma once
// Whether this host can hold a run before it starts: a counted latency run
// keeps every sample, and a run that cannot fit must say so up front, with
// what to do instead, not die of bad_alloc after the handshake.

#include <cstdint>
#include <optional>
#include <string>

#include "rdmabench/control/test_spec.hpp"

namespace rdmabench::detail {

/// Bytes one side needs for a run of `spec`: its two buffers of the largest
/// size and, for a counted latency run, the stamps, the samples and the
/// sorted copy the percentiles are read from (24 bytes a message).
std::uint64_t bytes_needed(const TestSpec& spec);

/// MemAvailable from /proc/meminfo (or `meminfo_path`), in bytes; nullopt
/// when it cannot be read.
std::optional<std::uint64_t> available_memory(const std::string& meminfo_path = "/proc/meminfo");

/// A message naming what the run needs, what this host has and what to do
/// instead, when `needed` exceeds `available`; nullopt if it fits or the
/// available amount is unknown.
std::optional<std::string> find_memory_shortfall(const TestSpec& spec,
                                                 std::optional<std::uint64_t> available);

}  // namespace rdmabench::detail
