// Thresholds per group of figures. The defaults follow how much each figure
// moves between healthy reruns: an average bandwidth over a whole run moves
// little, a p99 more, the few worst samples a lot (docs/compare.md).

#include "rdmabench/compare/thresholds.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rdmabench/compat/read_double.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::compare {

const std::vector<ThresholdDefault>& threshold_defaults() {
  static const std::vector<ThresholdDefault> defaults{
      {"bw", 0.03, "average bandwidth (each direction, and both)"},
      {"msg_rate", 0.03, "message rate"},
      {"peak", 0.05, "peak bandwidth (the best window)"},
      {"min", 0.05, "minimum latency"},
      {"median", 0.05, "median latency"},
      {"mean", 0.05, "average latency"},
      {"p90", 0.05, "p90 latency"},
      {"p99", 0.10, "p99 latency"},
      {"p99_9", 0.20, "p99.9 latency"},
      {"p99_99", 0.30, "p99.99 latency"},
      {"max", 0.50, "maximum latency"},
      {"cpu", 0.10, "CPU seconds per GB moved, each side"},
      {"counters", 0.50, "the watched error counters' deltas (retransmissions, sequence errors, discards)"},
  };
  return defaults;
}

Thresholds::Thresholds() {
  for (const ThresholdDefault& d : threshold_defaults()) groups_.emplace_back(std::string(d.group), d.fraction);
}

namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::string group_list() {
  std::string names;
  for (const ThresholdDefault& d : threshold_defaults()) names += (names.empty() ? "" : ", ") + std::string(d.group);
  return names;
}

double percentage_of(const std::string& item, const std::string& value) {
  const std::string example = "e.g. bw=3%,p99=10%";
  require(!value.empty() && value.back() == '%',
          fmt::format("--threshold {}: '{}' is no percentage", item, value),
          "give each threshold as a percentage of the old figure, " + example);
  const std::string number = value.substr(0, value.size() - 1);
  double percent = 0;
  const auto [end, error] = read_double(number.data(), number.data() + number.size(), percent);
  require(error == std::errc() && end == number.data() + number.size(),
          fmt::format("--threshold {}: '{}' is no number", item, number), example);
  require(percent > 0 && percent < 1000,
          fmt::format("--threshold {}: {}% is out of range", item, number),
          "expected more than 0% and less than 1000%");
  return percent / 100;
}

}  // namespace

void Thresholds::apply(std::string_view spec) {
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = trimmed(spec.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const auto equals = item.find('=');
    require(equals != std::string::npos && equals > 0,
            fmt::format("--threshold {}: expected NAME=PERCENT%", item),
            "e.g. bw=3%,p99=10%; NAME is one of " + group_list() + ", all, or a figure key such as lat_p99_us");
    const std::string name = trimmed(item.substr(0, equals));
    const double fraction = percentage_of(item, trimmed(item.substr(equals + 1)));
    if (name == "all") {
      for (auto& [group, value] : groups_) value = fraction;
      keys_.clear();
    } else if (auto group = std::find_if(groups_.begin(), groups_.end(), [&](const auto& g) { return g.first == name; });
               group != groups_.end()) {
      group->second = fraction;
    } else {
      // A figure key: known ones by name, or a counter of any name.
      const FigureInfo figure = describe_figure(name);
      const bool known = figure.name != name || name.starts_with("counter_");
      require(known, fmt::format("--threshold {}: no group or figure is called '{}'", item, name),
              "groups: " + group_list() + ", all; or a figure key such as lat_p99_us or bw_average_MBps");
      keys_.emplace_back(name, fraction);
    }
    settings_.push_back(name + "=" + percent_text(fraction));
  }
}

double Thresholds::for_figure(const FigureInfo& figure) const {
  for (auto it = keys_.rbegin(); it != keys_.rend(); ++it)
    if (it->first == figure.key) return it->second;
  for (const auto& [group, fraction] : groups_)
    if (group == figure.group) return fraction;
  // A figure of no group (a key this version does not know): the strictest
  // latency default is no guess either way, so take the loosest.
  double loosest = 0;
  for (const auto& [group, fraction] : groups_) loosest = std::max(loosest, fraction);
  return loosest;
}

std::vector<std::string> Thresholds::settings_text() const { return settings_; }

std::string percent_text(double fraction) {
  std::string text = fmt::format("{:.2f}", fraction * 100);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text + "%";
}

}  // namespace rdmabench::compare
