// sysfs's port rate text, and the RoCE MTU of an interface.
#include "rdmabench/topology/port_rate.hpp"

#include <regex>

namespace rdmabench {

std::optional<double> parse_port_rate(const std::string& sysfs_rate) {
  static const std::regex rate(R"(^\s*([0-9]+(\.[0-9]+)?)\s*Gb/sec)");
  std::smatch match;
  if (!std::regex_search(sysfs_rate, match, rate)) return std::nullopt;
  return std::stod(match[1].str());
}

std::string port_speed_name(const std::string& sysfs_rate) {
  static const std::regex speed(R"(\(\s*[0-9]+X\s+([A-Z0-9]+)\s*\))");
  std::smatch match;
  return std::regex_search(sysfs_rate, match, speed) ? match[1].str() : "";
}

std::optional<std::uint32_t> roce_mtu_for_netdev(std::uint32_t netdev_mtu) {
  // The kernel leaves room for the largest RoCE headers: GRH 40, UDP 8,
  // BTH 12, XRC ETH 4, AtomicETH 28, ICRC 4 (include/rdma/ib_addr.h).
  constexpr std::uint32_t kRoceHeadroom = 40 + 8 + 12 + 4 + 28 + 4;
  if (netdev_mtu < kRoceHeadroom) return std::nullopt;
  for (std::uint32_t mtu = 4096; mtu >= 256; mtu /= 2)
    if (mtu <= netdev_mtu - kRoceHeadroom) return mtu;
  return std::nullopt;
}

}  // namespace rdmabench
