// The SVG of a dot plot, written by hand: a few lines, circles and texts
// need no library, and the page stays one self-contained file. The axis
// is logarithmic when the values span more than a factor of 50 (message
// sizes in one plot, or a tail latency beside a median), else linear.

#include "dot_plot.hpp"
#include "report/html_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sweep/value_text.hpp"

namespace rdmabench::compare::detail {

namespace {

constexpr double kPlotWidth = 820, kPlotLeft = 250, kPlotRight = 150, kPlotTop = 40, kPlotRowHeight = 36, kPlotAxisHeight = 40;
constexpr const char* kOldSideColour = "#777777";

class PlotAxis {
 public:
  PlotAxis(double low, double high) {
    log_ = low > 0 && high / low > 50;
    if (log_) {
      low_ = std::log10(low);
      high_ = std::log10(high);
    } else {
      low_ = low;
      high_ = high;
    }
    const double pad = (high_ - low_) * 0.05;
    if (pad > 0) {
      low_ -= pad;
      high_ += pad;
    } else {  // one value alone: a band around it
      const double band = log_ ? 0.1 : (low_ == 0 ? 1 : std::fabs(low_) * 0.1);
      low_ -= band;
      high_ += band;
    }
  }

  double x(double value) const {
    const double v = log_ ? std::log10(std::max(value, 1e-300)) : value;
    return kPlotLeft + (v - low_) / (high_ - low_) * (kPlotWidth - kPlotLeft - kPlotRight);
  }

  /// About five round values inside the axis.
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log_) {
      for (double d = std::ceil(low_); d <= high_; ++d) t.push_back(std::pow(10, d));
      return t;
    }
    const double raw = (high_ - low_) / 5;
    const double magnitude = std::pow(10, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    for (double v = std::ceil(low_ / step) * step; v <= high_; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    return t;
  }

 private:
  bool log_ = false;
  double low_ = 0, high_ = 1;
};

void extend_to_side(double& low, double& high, const DotSide& side) {
  for (double v : side.values) {
    low = std::min(low, v);
    high = std::max(high, v);
  }
  if (side.interval) {
    low = std::min(low, side.interval->low);
    high = std::max(high, side.interval->high);
  }
}

std::string dot_side_marks(const PlotAxis& axis, const DotSide& side, double y, const std::string& colour, bool filled) {
  std::string svg;
  if (side.interval) {
    const double a = axis.x(side.interval->low), b = axis.x(side.interval->high);
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"/>", a,
                       y, b, y, colour);
    for (double end : {a, b})
      svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"/>",
                         end, y - 4, end, y + 4, colour);
  }
  for (double v : side.values)
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"{}\" fill-opacity=\"0.45\"/>", axis.x(v),
                       y, colour);
  svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                     axis.x(side.median), y, filled ? colour : "#ffffff", colour);
  return svg;
}

}  // namespace

std::string dot_plot_svg(const DotPlot& plot) {
  double low = INFINITY, high = -INFINITY;
  for (const DotRow& r : plot.rows) {
    extend_to_side(low, high, r.old_side);
    extend_to_side(low, high, r.new_side);
  }
  if (!std::isfinite(low)) low = high = 0;
  const PlotAxis axis(low, high);
  const double plot_bottom = kPlotTop + kPlotRowHeight * static_cast<double>(plot.rows.size());
  const double height = plot_bottom + kPlotAxisHeight;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"{}\">",
      kPlotWidth, height, kPlotWidth, height, report::html_escape(plot.title));
  svg += fmt::format("<text x=\"4\" y=\"16\" font-weight=\"bold\" font-size=\"14\">{}</text>", report::html_escape(plot.title));
  // The legend: hollow grey is old, filled in the verdict's colour is new.
  svg += fmt::format("<circle cx=\"{:.0f}\" cy=\"30\" r=\"4.5\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"1.5\"/>"
                     "<text x=\"{:.0f}\" y=\"34\">old: median, interval, repeats</text>",
                     kPlotLeft, kOldSideColour, kPlotLeft + 10);
  svg += fmt::format("<circle cx=\"{:.0f}\" cy=\"30\" r=\"4.5\" fill=\"#2e6fd0\"/><text x=\"{:.0f}\" y=\"34\">new "
                     "(red: regressed, green: improved, blue: same)</text>",
                     kPlotLeft + 220, kPlotLeft + 230);
  for (double t : axis.ticks()) {
    const double x = axis.x(t);
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.0f}\" x2=\"{:.1f}\" y2=\"{:.0f}\" stroke=\"#dddddd\"/>", x, kPlotTop, x,
                       plot_bottom);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>", x, plot_bottom + 16,
                       report::html_escape(sweep::detail::value_text(t)));
  }
  for (std::size_t i = 0; i < plot.rows.size(); ++i) {
    const DotRow& r = plot.rows[i];
    const double middle = kPlotTop + kPlotRowHeight * (static_cast<double>(i) + 0.5);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kPlotLeft - 12, middle + 4,
                       report::html_escape(r.label));
    svg += dot_side_marks(axis, r.old_side, middle - 6, kOldSideColour, false);
    svg += dot_side_marks(axis, r.new_side, middle + 6, r.colour, true);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" fill=\"{}\">{}</text>", kPlotWidth - kPlotRight + 12, middle + 4,
                       r.colour, report::html_escape(r.right));
  }
  svg += fmt::format("<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"#333333\"/>", kPlotLeft,
                     plot_bottom, kPlotWidth - kPlotRight, plot_bottom);
  return svg + "</svg>";
}

}  // namespace rdmabench::compare::detail
