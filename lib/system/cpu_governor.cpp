#include "rdmabench/system/cpu_governor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <vector>

namespace rdmabench {

std::optional<std::string> governor_warning(const std::filesystem::path& cpu_root) {
  std::error_code error;
  std::vector<std::filesystem::path> cpus;
  static const std::regex cpu_name("cpu[0-9]+");
  for (const auto& entry : std::filesystem::directory_iterator(cpu_root, error))
    if (std::regex_match(entry.path().filename().string(), cpu_name)) cpus.push_back(entry.path());
  std::sort(cpus.begin(), cpus.end());
  for (const auto& cpu : cpus) {
    std::ifstream in(cpu / "cpufreq" / "scaling_governor");
    std::string governor;
    if (!(in >> governor) || governor == "performance") continue;
    return fmt::format(
        "warning: the CPU frequency governor of {} is '{}', not 'performance': figures will "
        "drift with the clock speed (cpupower frequency-set -g performance)",
        cpu.filename().string(), governor);
  }
  return std::nullopt;
}

}  // namespace rdmabench
