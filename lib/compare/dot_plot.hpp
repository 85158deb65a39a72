#pragma once
// One figure's plot for report.html, as inline SVG: a row per matched
// test, the old median and the new one each with its interval as a
// whisker and each repeat as a faint dot, on one shared axis.

#include <optional>
#include <string>
#include <vector>

#include "rdmabench/compare/bootstrap.hpp"

namespace rdmabench::compare::detail {

struct DotSide {
  std::vector<double> values;
  double median = 0;
  std::optional<Interval> interval;
};

struct DotRow {
  std::string label;   ///< the test
  DotSide old_side, new_side;
  std::string colour;  ///< of the new side: the verdict's
  std::string right;   ///< beside the row: "-20.1% regressed"
};

struct DotPlot {
  std::string title;  ///< "bandwidth (MB/s), higher is better"
  std::vector<DotRow> rows;
};

/// The plot as one <svg> element (no script, no external reference).
std::string dot_plot_svg(const DotPlot& plot);

}  // namespace rdmabench::compare::detail
