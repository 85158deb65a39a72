#include "rdmabench/system/cpu_usage.hpp"

#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <vector>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

namespace {

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

std::uint64_t parse_counter(std::string_view token, const std::string& what) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  require(ec == std::errc() && end == token.data() + token.size(),
          what + " is not a non-negative integer: \"" + std::string(token) + "\"");
  return value;
}

bool is_per_cpu_name(std::string_view name) {
  if (name.size() <= 3 || name.substr(0, 3) != "cpu") return false;
  for (char c : name.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string read_whole_file(const char* path) {
  std::ifstream in(path);
  if (!in) throw_system_error(std::string("open ") + path, errno);
  std::ostringstream text;
  text << in.rdbuf();
  require(!in.bad(), std::string("reading ") + path + " failed");
  return text.str();
}

double monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Signed, so that a counter that went backwards shows as negative instead of
// wrapping to 1.8e19.
double delta(std::uint64_t before, std::uint64_t after) {
  return after >= before ? static_cast<double>(after - before)
                         : -static_cast<double>(before - after);
}

[[noreturn]] void throw_backwards(const std::string& what, const std::string& before,
                                  const std::string& after) {
  throw Error(
      fmt::format("{} went backwards between the CPU snapshots ({} -> {})", what, before, after),
      "were the snapshots swapped, or did the counter wrap?");
}

void require_forward(double before, double after, const std::string& what) {
  if (after < before)
    throw_backwards(what, fmt::format("{} s", before), fmt::format("{} s", after));
}

void require_forward(std::uint64_t before, std::uint64_t after, const std::string& what) {
  if (after < before) {
    throw_backwards(what, fmt::format("{} ticks", before), fmt::format("{} ticks", after));
  }
}

}  // namespace

ProcessCpu parse_proc_self_stat(const std::string& text, long ticks_per_second) {
  require(ticks_per_second > 0,
          "clock ticks per second must be positive, not " + std::to_string(ticks_per_second));
  // The command name may contain ") " itself; nothing after it can.
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  require(open != std::string::npos && close != std::string::npos && close > open,
          "/proc/self/stat text has no parenthesised command name (field 2)");
  const auto fields = split_whitespace(std::string_view(text).substr(close + 1));
  // fields[0] is field 3 (state), so field N is fields[N - 3].
  require(fields.size() >= 13, "/proc/self/stat text ends after field " +
                                   std::to_string(fields.size() + 2) +
                                   "; utime and stime are fields 14 and 15");
  const auto tps = static_cast<double>(ticks_per_second);
  ProcessCpu cpu;
  cpu.user_s =
      static_cast<double>(parse_counter(fields[11], "/proc/self/stat utime (field 14)")) / tps;
  cpu.system_s =
      static_cast<double>(parse_counter(fields[12], "/proc/self/stat stime (field 15)")) / tps;
  return cpu;
}

MachineCpu parse_proc_stat(const std::string& text) {
  MachineCpu cpu;
  bool found = false;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto tokens = split_whitespace(line);
    if (tokens.empty()) continue;
    if (is_per_cpu_name(tokens[0])) {
      ++cpu.cpus;
      continue;
    }
    if (tokens[0] != "cpu") continue;
    require(!found, "/proc/stat text has more than one aggregate \"cpu\" line");
    found = true;
    // In the kernel's order; guest and guest_nice follow but are already in user and nice.
    static constexpr const char* names[] = {"user",   "nice", "system",  "idle",
                                            "iowait", "irq",  "softirq", "steal"};
    std::uint64_t* const fields[] = {&cpu.user,   &cpu.nice, &cpu.system,  &cpu.idle,
                                     &cpu.iowait, &cpu.irq,  &cpu.softirq, &cpu.steal};
    const std::size_t numbers = tokens.size() - 1;
    require(numbers >= 4, "/proc/stat \"cpu\" line has " + std::to_string(numbers) +
                              " numbers; every kernel prints at least 4 (user nice system idle)");
    for (std::size_t i = 0; i < std::size(fields) && i < numbers; ++i) {
      *fields[i] = parse_counter(tokens[i + 1], std::string("/proc/stat cpu ") + names[i]);
    }
  }
  require(found, "/proc/stat text has no aggregate \"cpu\" line");
  require(cpu.cpus > 0, "/proc/stat text has no per-CPU lines (cpu0, cpu1, ...)");
  return cpu;
}

CpuSnapshot take_cpu_snapshot() {
  CpuSnapshot s;
  s.ticks_per_second = sysconf(_SC_CLK_TCK);
  if (s.ticks_per_second <= 0) throw_system_error("sysconf(_SC_CLK_TCK)", errno);
  s.wall_s = monotonic_seconds();
  s.process = parse_proc_self_stat(read_whole_file("/proc/self/stat"), s.ticks_per_second);
  s.machine = parse_proc_stat(read_whole_file("/proc/stat"));
  return s;
}

CpuUsage cpu_usage_between(const CpuSnapshot& before, const CpuSnapshot& after,
                           std::uint64_t bytes_moved) {
  require(before.ticks_per_second > 0 && before.ticks_per_second == after.ticks_per_second,
          "CPU snapshots have different or invalid clock tick rates (" +
              std::to_string(before.ticks_per_second) + " and " +
              std::to_string(after.ticks_per_second) + " per second)");
  require(before.machine.cpus == after.machine.cpus,
          "the number of online CPUs changed between the CPU snapshots (" +
              std::to_string(before.machine.cpus) + " -> " + std::to_string(after.machine.cpus) +
              ")",
          "machine figures per CPU would be meaningless; keep CPUs online during the run");
  // Written so that NaN fails too.
  if (!(after.wall_s > before.wall_s)) {
    throw Error(fmt::format("wall time between the CPU snapshots is not positive ({} -> {} s)",
                            before.wall_s, after.wall_s),
                "were the snapshots swapped?");
  }
  require_forward(before.process.user_s, after.process.user_s, "process user CPU time");
  require_forward(before.process.system_s, after.process.system_s, "process system CPU time");
  const MachineCpu& b = before.machine;
  const MachineCpu& a = after.machine;
  require_forward(b.user, a.user, "/proc/stat user");
  require_forward(b.nice, a.nice, "/proc/stat nice");
  require_forward(b.system, a.system, "/proc/stat system");
  require_forward(b.irq, a.irq, "/proc/stat irq");
  require_forward(b.softirq, a.softirq, "/proc/stat softirq");
  require_forward(b.steal, a.steal, "/proc/stat steal");
  // Idle and iowait each may step back (see the header); their sum may not.
  if (delta(b.idle, a.idle) + delta(b.iowait, a.iowait) < 0) {
    throw_backwards("/proc/stat idle + iowait", fmt::format("{} + {} ticks", b.idle, b.iowait),
                    fmt::format("{} + {} ticks", a.idle, a.iowait));
  }

  CpuUsage u;
  u.wall_s = after.wall_s - before.wall_s;
  const auto tps = static_cast<double>(after.ticks_per_second);
  u.resolution_s = 1.0 / tps;

  const double user_s = after.process.user_s - before.process.user_s;
  const double system_s = after.process.system_s - before.process.system_s;
  u.process_cpu_s = user_s + system_s;
  u.process_cores = u.process_cpu_s / u.wall_s;
  u.process_user_cores = user_s / u.wall_s;
  u.process_system_cores = system_s / u.wall_s;
  if (bytes_moved > 0) {
    u.process_cpu_s_per_gb = u.process_cpu_s / (static_cast<double>(bytes_moved) / 1e9);
  }

  const auto cores = [&](std::uint64_t from, std::uint64_t to) {
    return delta(from, to) / tps / u.wall_s;
  };
  u.machine_cpus = after.machine.cpus;
  u.machine_user_cores = cores(b.user, a.user);
  u.machine_nice_cores = cores(b.nice, a.nice);
  u.machine_system_cores = cores(b.system, a.system);
  u.machine_irq_cores = cores(b.irq, a.irq);
  u.machine_softirq_cores = cores(b.softirq, a.softirq);
  u.machine_steal_cores = cores(b.steal, a.steal);
  u.machine_cores = u.machine_user_cores + u.machine_nice_cores + u.machine_system_cores +
                    u.machine_irq_cores + u.machine_softirq_cores + u.machine_steal_cores;
  if (a.idle >= b.idle && a.iowait >= b.iowait) u.machine_iowait_cores = cores(b.iowait, a.iowait);
  return u;
}

nlohmann::json to_json(const CpuUsage& u) {
  const auto or_null = [](const std::optional<double>& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {
      {"wall_s", u.wall_s},
      {"resolution_s", u.resolution_s},
      {"process",
       {{"cpu_s", u.process_cpu_s},
        {"cores", u.process_cores},
        {"user_cores", u.process_user_cores},
        {"system_cores", u.process_system_cores},
        {"cpu_s_per_GB", or_null(u.process_cpu_s_per_gb)}}},
      {"machine",
       {{"cpus", u.machine_cpus},
        {"cores", u.machine_cores},
        {"user_cores", u.machine_user_cores},
        {"nice_cores", u.machine_nice_cores},
        {"system_cores", u.machine_system_cores},
        {"irq_cores", u.machine_irq_cores},
        {"softirq_cores", u.machine_softirq_cores},
        {"steal_cores", u.machine_steal_cores},
        {"iowait_cores", or_null(u.machine_iowait_cores)}}},
  };
}

}  // namespace rdmabench
