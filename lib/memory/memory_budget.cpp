#include "memory/memory_budget.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace rdmabench::detail {

namespace {

constexpr std::uint64_t kBytesPerKeptSample = 24;  // stamp, sample, sorted copy

std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1u << 30)); }

}  // namespace

std::uint64_t bytes_needed(const TestSpec& spec) {
  std::uint64_t bytes = 2 * largest_size(spec);
  if (spec.measurement == Measurement::latency && spec.duration_s == 0)
    bytes += (spec.iterations + spec.warmup + 1) * kBytesPerKeptSample;
  if (spec.load_queue_pairs) bytes += 2 * spec.load_size;  // --load-qps: the load's own two buffers
  return bytes;
}

std::optional<std::uint64_t> available_memory(const std::string& meminfo_path) {
  std::ifstream in(meminfo_path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    std::uint64_t kib = 0;
    if (fields >> name >> kib && name == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

std::optional<std::string> find_memory_shortfall(const TestSpec& spec,
                                                 std::optional<std::uint64_t> available) {
  const std::uint64_t needed = bytes_needed(spec);
  if (!available || needed <= *available) return std::nullopt;
  const bool samples = spec.measurement == Measurement::latency && spec.duration_s == 0;
  std::string what = samples ? fmt::format("every sample of -n {} kept, 24 bytes each, and two {}-byte buffers",
                                           spec.iterations, largest_size(spec))
                             : fmt::format("two {}-byte buffers", largest_size(spec));
  if (spec.load_queue_pairs) what += fmt::format(", and two {}-byte buffers for --load-size", spec.load_size);
  // The advice names the option behind the largest part of the need.
  const std::uint64_t buffers = 2 * largest_size(spec);
  const std::uint64_t load = spec.load_queue_pairs ? 2 * spec.load_size : 0;
  const std::uint64_t kept = needed - buffers - load;
  const char* advice =
      load > buffers && load > kept ? "give a smaller --load-size"
      : samples && kept > buffers   ? "give -D SECONDS (a fixed-size histogram, within 0.39% of the exact "
                                      "percentiles) or a smaller -n"
                                    : "give a smaller -s";
  return fmt::format("this run needs {} of memory ({}) and this host has {} available; {}", gib(needed), what,
                     gib(*available), advice);
}

}  // namespace rdmabench::detail
