// The small pieces of report.html: escaping, a heatmap cell's colour, and
// base64 for the embedded PNGs (the page must stand alone, with no URL).

#include <fmt/format.h>

#include <cmath>

#include "report_internal.hpp"

namespace rdmabench::sweep::detail {

std::string heat_colour(double value, double worst, double best) {
  // Share of the way from the worst pair to the best; one value alone (or
  // all equal) is the best there is.
  double share = worst == best ? 1.0 : (value - worst) / (best - worst);
  share = std::fmin(1.0, std::fmax(0.0, share));
  // Hue 0 is red, 120 green; light enough for black text on every cell.
  return fmt::format("background:hsl({:.0f},70%,70%)", 120.0 * share);
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t k = 0; k < 3; ++k)
      chunk = (chunk << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k)
      out += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 0x3f] : '=';
  }
  return out;
}

}  // namespace rdmabench::sweep::detail
