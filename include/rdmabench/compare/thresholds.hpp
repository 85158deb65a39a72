#pragma once
/// @file
/// How far a figure may move before rdma_compare calls it a change: one
/// relative threshold per group of figures (`bw`, `p99`, ...), or per
/// figure key, as `--threshold bw=3%,p99=10%` sets them. docs/compare.md
/// lists the defaults and why each.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rdmabench/compare/figures.hpp"

namespace rdmabench::compare {

/// One group's default: its name, its threshold (a fraction: 0.03 is 3%)
/// and the figures it holds, in words.
struct ThresholdDefault {
  std::string_view group;
  double fraction;
  std::string_view holds;
};
/// Every group with its default, in the order --help and the docs list them.
const std::vector<ThresholdDefault>& threshold_defaults();

class Thresholds {
 public:
  /// The defaults of threshold_defaults().
  Thresholds();

  /// Applies "NAME=P%[,NAME=P%...]": NAME is a group (bw, p99, ...), a
  /// figure key (lat_p99_us) or `all` (every group); P a percentage above
  /// 0 and below 1000. Later settings win. Throws rdmabench::Error naming
  /// the item that is wrong and what would be right.
  void apply(std::string_view spec);

  /// The threshold (a fraction) for `figure`: its key's own setting, else
  /// its group's.
  double for_figure(const FigureInfo& figure) const;

  /// Every setting made by apply(), as "NAME=P%", in order (for reports).
  std::vector<std::string> settings_text() const;

 private:
  std::vector<std::pair<std::string, double>> groups_;  ///< every group, defaults first
  std::vector<std::pair<std::string, double>> keys_;    ///< per-figure settings
  std::vector<std::string> settings_;
};

/// "3%", "0.5%", "12.5%": a fraction as a percentage, as the reports write it.
std::string percent_text(double fraction);

}  // namespace rdmabench::compare
