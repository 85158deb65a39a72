#include "rdmabench/verbs/port_counters.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <system_error>

namespace rdmabench {

namespace {

/// The number a counter file holds, or nothing (unreadable, or not a count).
std::optional<std::uint64_t> counter_file_value(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop == text.data()) return std::nullopt;
  for (const char* c = stop; c != end; ++c)
    if (*c != ' ' && *c != '\n' && *c != '\r') return std::nullopt;
  return value;
}

/// Every counter file in `folder` into `values`, keeping a name already there.
/// `lifespan` is a setting of the hw_counters folder (mlx5: how long a read
/// is cached, in ms), not a count.
std::size_t read_counter_folder(const std::filesystem::path& folder,
                                std::map<std::string, std::uint64_t>& values) {
  std::error_code failed;
  std::size_t read = 0;
  // The non-throwing increment: a folder that goes away mid-walk ends it.
  for (std::filesystem::directory_iterator it(folder, failed), end; !failed && it != end; it.increment(failed)) {
    const std::string name = it->path().filename().string();
    std::error_code kind;
    if (name == "lifespan" || !it->is_regular_file(kind)) continue;
    if (const auto value = counter_file_value(it->path())) {
      values.emplace(name, *value);
      ++read;
    }
  }
  return read;
}

/// /proc/net/snmp's Tcp: RetransSegs, InErrs and OutRsts.
std::map<std::string, std::uint64_t> host_tcp_counters(const std::filesystem::path& proc) {
  std::ifstream in(proc / "net" / "snmp");
  std::string names, values;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Tcp:", 0) != 0) continue;
    if (names.empty())
      names = line;
    else
      values = line;
  }
  std::map<std::string, std::uint64_t> wanted;
  std::istringstream name_words(names), value_words(values);
  std::string name, value;
  while (name_words >> name && value_words >> value) {
    if (name != "RetransSegs" && name != "InErrs" && name != "OutRsts") continue;
    std::uint64_t n = 0;
    if (std::from_chars(value.data(), value.data() + value.size(), n).ec == std::errc())
      wanted["tcp_" + name] = n;
  }
  return wanted;
}

}  // namespace

CounterSnapshot read_port_counters(const std::string& device, int port,
                                   const std::filesystem::path& sysfs,
                                   const std::filesystem::path& proc) {
  CounterSnapshot s;
  const auto device_dir = sysfs / "class" / "infiniband" / device;
  const auto port_dir = device_dir / "ports" / std::to_string(port);
  const std::size_t standard = read_counter_folder(port_dir / "counters", s.values);
  const std::size_t provider = read_counter_folder(port_dir / "hw_counters", s.values) +
                               read_counter_folder(device_dir / "hw_counters", s.values);
  if (standard || provider) {
    s.source = fmt::format("{} port {} {}", device, port,
                           standard && provider ? "counters and hw_counters"
                           : standard           ? "counters"
                                                : "hw_counters");
    return s;
  }
  s.values = host_tcp_counters(proc);
  if (!s.values.empty()) {
    s.source = fmt::format("host TCP, host-wide ({} has no counters of its own)", device);
    s.host_wide = true;
  }
  return s;
}

CounterDeltas counter_deltas(const CounterSnapshot& before, const CounterSnapshot& after) {
  CounterDeltas d;
  d.source = after.source;
  d.host_wide = after.host_wide;
  for (const auto& [name, then] : before.values) {
    const auto now = after.values.find(name);
    if (now == after.values.end()) continue;
    ++d.counters_read;
    if (now->second < then)
      d.went_backwards.push_back(name);
    else if (now->second > then)
      d.moved[name] = now->second - then;
  }
  return d;
}

std::optional<ReceiverNotReady> receiver_not_ready(const CounterSnapshot& before,
                                                   const CounterSnapshot& after) {
  // The first of `names` read both times, as a delta; empty if none was.
  auto delta = [&](std::initializer_list<const char*> names) -> std::optional<std::uint64_t> {
    for (const char* name : names) {
      const auto then = before.values.find(name);
      const auto now = after.values.find(name);
      if (then == before.values.end() || now == after.values.end()) continue;
      if (now->second < then->second) return std::nullopt;  // reset or wrapped
      return now->second - then->second;
    }
    return std::nullopt;
  };
  ReceiverNotReady rnr{delta({"send_rnr_err"}), delta({"rcvd_rnr_err", "rnr_nak_retry_err"}),
                       after.source};
  if (!rnr.naks_sent && !rnr.naks_received) return std::nullopt;
  return rnr;
}

std::string describe_moved(const CounterDeltas& deltas) {
  if (deltas.moved.empty()) return "none moved";
  std::string text;
  for (const auto& [name, delta] : deltas.moved)
    text += fmt::format("{}{} +{}", text.empty() ? "" : ", ", name, delta);
  return text;
}

}  // namespace rdmabench
