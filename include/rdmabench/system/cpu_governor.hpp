#pragma once
/// @file
/// perftest's -F check: a CPU frequency governor other than "performance"
/// makes figures drift with the clock speed.

#include <filesystem>
#include <optional>
#include <string>

namespace rdmabench {

/// A warning naming the first CPU whose governor is not "performance", or
/// nullopt when all are (or when cpufreq is absent, as in most VMs).
/// `cpu_root` is /sys/devices/system/cpu, replaceable for tests.
std::optional<std::string> governor_warning(
    const std::filesystem::path& cpu_root = "/sys/devices/system/cpu");

}  // namespace rdmabench
