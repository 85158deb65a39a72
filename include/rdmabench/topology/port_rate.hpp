#pragma once
/// @file
/// An RDMA port's rate as sysfs's ports/N/rate writes it ("100 Gb/sec (4X
/// EDR)"), and the RoCE MTU an Ethernet interface's MTU allows.

#include <cstdint>
#include <optional>
#include <string>

namespace rdmabench {

/// "100 Gb/sec (4X EDR)" -> 100; empty when the text has no rate (soft
/// devices may not say).
std::optional<double> parse_port_rate(const std::string& sysfs_rate);

/// "100 Gb/sec (4X EDR)" -> "EDR"; empty when the text names no speed.
std::string port_speed_name(const std::string& sysfs_rate);

/// The largest IB MTU (256 to 4096) whose RoCE packet fits an Ethernet MTU
/// of `netdev_mtu`, as the kernel chooses the active MTU (iboe_get_mtu);
/// empty when none fits.
std::optional<std::uint32_t> roce_mtu_for_netdev(std::uint32_t netdev_mtu);

}  // namespace rdmabench
