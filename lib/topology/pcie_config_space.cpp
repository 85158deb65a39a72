// MaxPayload and MaxReadReq from a PCI function's config space. They live in
// the Device Control register of the PCI Express capability, which is found
// by walking the capability list: offset 0x34 points at the first entry,
// each entry is {ID, next}. Layout: PCI Express Base Specification, 7.5.3.
#include "rdmabench/topology/pcie_link.hpp"

namespace rdmabench {

namespace {

constexpr std::size_t kCapabilityPointer = 0x34;
constexpr std::uint8_t kPciExpressCapabilityId = 0x10;
constexpr std::size_t kDeviceControlOffset = 8;  // from the capability's start
/// Capabilities sit above the 64-byte standard header, below 256; the list
/// can hold at most (256 - 64) / 4 of them, which bounds a corrupt loop.
constexpr std::size_t kFirstCapabilityOffset = 0x40;
constexpr int kMostCapabilities = (256 - 64) / 4;

/// Both fields encode 128 << n; n of 6 and 7 are reserved.
std::optional<std::uint32_t> size_field(unsigned encoded) {
  if (encoded > 5) return std::nullopt;
  return 128u << encoded;
}

}  // namespace

std::optional<DeviceControlSizes> read_device_control_sizes(const std::vector<std::uint8_t>& config) {
  if (config.size() <= kCapabilityPointer) return std::nullopt;
  std::size_t at = config[kCapabilityPointer] & 0xfcu;  // the low two bits are reserved
  for (int hops = 0; hops < kMostCapabilities && at >= kFirstCapabilityOffset; ++hops) {
    if (at + 1 >= config.size()) return std::nullopt;  // beyond what we may read
    if (config[at] == kPciExpressCapabilityId) {
      const std::size_t control = at + kDeviceControlOffset;
      if (control + 1 >= config.size()) return std::nullopt;
      const unsigned value = config[control] | (static_cast<unsigned>(config[control + 1]) << 8);
      const auto payload = size_field((value >> 5) & 0x7u);
      const auto read_request = size_field((value >> 12) & 0x7u);
      if (!payload || !read_request) return std::nullopt;
      return DeviceControlSizes{*payload, *read_request};
    }
    at = config[at + 1] & 0xfcu;
  }
  return std::nullopt;
}

}  // namespace rdmabench
