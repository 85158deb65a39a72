#pragma once
/// @file
/// A PCI function's link as sysfs shows it: the speed and width it trained
/// at, the most it can do, and, from its config space where this reader may
/// see it, the MaxPayload and MaxReadReq that its Device Control sets.
/// Nothing here throws: a missing or odd file leaves its field empty.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

struct PcieLink {
  std::optional<double> speed_gts;      ///< current_link_speed per lane; empty: "Unknown" or unreadable
  std::optional<double> max_speed_gts;  ///< max_link_speed
  std::optional<int> width;             ///< current_link_width, lanes
  std::optional<int> max_width;         ///< max_link_width
  /// From the PCI Express capability's Device Control; empty where the
  /// config space is not readable (a non-root reader sees 64 bytes of it).
  std::optional<std::uint32_t> max_payload_bytes;
  std::optional<std::uint32_t> max_read_request_bytes;
  bool operator==(const PcieLink&) const = default;
};

/// "16.0 GT/s PCIe", "8.0 GT/s", "2.5 GT/s" -> GT/s per lane; empty for
/// "Unknown" or anything else.
std::optional<double> parse_link_speed(const std::string& sysfs_text);

/// "16" -> 16; empty for "0" (no link), text or nothing.
std::optional<int> parse_link_width(const std::string& sysfs_text);

/// The PCIe generation of a per-lane rate: 2.5 -> 1, 5 -> 2, 8 -> 3,
/// 16 -> 4, 32 -> 5, 64 -> 6; 0 for a rate no generation has.
int pcie_generation(double gts);

/// MaxPayload and MaxReadReq from a function's config space as read from
/// sysfs's `config`: the capability list is walked from offset 0x34 to the
/// PCI Express capability (ID 0x10), whose Device Control (at +8) holds
/// them. Empty when the bytes do not reach it.
struct DeviceControlSizes {
  std::uint32_t max_payload_bytes = 0;
  std::uint32_t max_read_request_bytes = 0;
};
std::optional<DeviceControlSizes> read_device_control_sizes(const std::vector<std::uint8_t>& config);

/// The link of the PCI function at `function_dir` (its resolved sysfs
/// directory). Empty when sysfs gives neither speed nor width (a virtual
/// function of some hypervisors, or a recorded tree without them).
std::optional<PcieLink> read_pcie_link(const std::filesystem::path& function_dir);

/// Whether the link trained below its maximum speed or width (both of the
/// pair known): a card in a slot it does not fill, or a bad riser.
bool trained_below_max(const PcieLink& link);

/// "Gen4 x8 (max Gen5 x16), MPS 256, MRRS 4096"; unknowns say so.
std::string describe(const PcieLink& link);

/// "Gen4 x8": the speed and width alone, current or maximum.
std::string speed_and_width(std::optional<double> gts, std::optional<int> width);

/// The warning for a link trained below its maximum, naming `who`
/// ("mlx5_0 (PCI 0000:81:00.0)"); empty when it is not.
std::optional<std::string> degraded_link_warning(const PcieLink& link, const std::string& who);

}  // namespace rdmabench
