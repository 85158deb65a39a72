// A PCI function's link from sysfs (current_link_speed, max_link_speed,
// current_link_width, max_link_width, config), and how it is told to people.
#include "rdmabench/topology/pcie_link.hpp"

#include <fmt/format.h>

#include <cmath>
#include <regex>

#include "topology/sysfs_attribute.hpp"

namespace fs = std::filesystem;

namespace rdmabench {

namespace {

/// Per-lane rates of PCIe 1.0 to 6.0, in GT/s, by generation - 1.
constexpr double kGenerationRates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};

/// The whole config space of a PCIe function is 4 KiB; the capability
/// list we walk lies in its first 256 bytes.
constexpr std::size_t kConfigBytesWanted = 256;

std::string generation_text(std::optional<double> gts) {
  if (!gts) return "unknown speed";
  const int generation = pcie_generation(*gts);
  return generation ? fmt::format("Gen{}", generation) : fmt::format("{:g} GT/s", *gts);
}

std::string width_text(std::optional<int> width) { return width ? fmt::format("x{}", *width) : "x?"; }

std::string size_text(std::optional<std::uint32_t> bytes) {
  return bytes ? std::to_string(*bytes) : "not readable";
}

}  // namespace

std::optional<double> parse_link_speed(const std::string& sysfs_text) {
  static const std::regex speed(R"(^\s*([0-9]+(\.[0-9]+)?)\s*GT/s)");
  std::smatch match;
  if (!std::regex_search(sysfs_text, match, speed)) return std::nullopt;
  const double gts = std::stod(match[1].str());
  return gts > 0 ? std::optional<double>(gts) : std::nullopt;
}

std::optional<int> parse_link_width(const std::string& sysfs_text) {
  static const std::regex width(R"(^\s*([0-9]{1,3})\s*$)");
  std::smatch match;
  if (!std::regex_match(sysfs_text, match, width)) return std::nullopt;
  const int lanes = std::stoi(match[1].str());
  return lanes > 0 ? std::optional<int>(lanes) : std::nullopt;
}

int pcie_generation(double gts) {
  for (std::size_t i = 0; i < std::size(kGenerationRates); ++i)
    if (std::abs(gts - kGenerationRates[i]) < 0.01) return static_cast<int>(i) + 1;
  return 0;
}

std::optional<PcieLink> read_pcie_link(const fs::path& function_dir) {
  auto attribute = [&](const char* name) { return detail::read_attribute(function_dir / name).value_or(""); };
  PcieLink link;
  link.speed_gts = parse_link_speed(attribute("current_link_speed"));
  link.max_speed_gts = parse_link_speed(attribute("max_link_speed"));
  link.width = parse_link_width(attribute("current_link_width"));
  link.max_width = parse_link_width(attribute("max_link_width"));
  if (!link.speed_gts && !link.max_speed_gts && !link.width && !link.max_width) return std::nullopt;
  if (const auto sizes =
          read_device_control_sizes(detail::read_binary_attribute(function_dir / "config", kConfigBytesWanted))) {
    link.max_payload_bytes = sizes->max_payload_bytes;
    link.max_read_request_bytes = sizes->max_read_request_bytes;
  }
  return link;
}

bool trained_below_max(const PcieLink& link) {
  const bool slower = link.speed_gts && link.max_speed_gts && *link.speed_gts < *link.max_speed_gts - 0.01;
  const bool narrower = link.width && link.max_width && *link.width < *link.max_width;
  return slower || narrower;
}

std::string speed_and_width(std::optional<double> gts, std::optional<int> width) {
  return fmt::format("{} {}", generation_text(gts), width_text(width));
}

std::string describe(const PcieLink& link) {
  const std::string now = speed_and_width(link.speed_gts, link.width);
  const std::string most = speed_and_width(link.max_speed_gts, link.max_width);
  const bool max_known = link.max_speed_gts || link.max_width;
  return fmt::format("{}{}, MPS {}, MRRS {}", now, !max_known || now == most ? "" : " (max " + most + ")",
                     size_text(link.max_payload_bytes), size_text(link.max_read_request_bytes));
}

std::optional<std::string> degraded_link_warning(const PcieLink& link, const std::string& who) {
  if (!trained_below_max(link)) return std::nullopt;
  // GPUs (and some NICs with ASPM) slow an idle link to save power and
  // speed it up under load: a narrower link has no such excuse.
  const bool narrower = link.width && link.max_width && *link.width < *link.max_width;
  return fmt::format("{} trained its PCIe link at {}, below its maximum {}: check the slot, riser "
                     "and BIOS link settings (lspci -vv: LnkSta against LnkCap){}",
                     who, speed_and_width(link.speed_gts, link.width),
                     speed_and_width(link.max_speed_gts, link.max_width),
                     narrower ? "" : "; an idle device may slow its link to save power, look again under load");
}

}  // namespace rdmabench
