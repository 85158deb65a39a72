#pragma once
// Where the other ranks reach this rank: the IPv4 address of the device's
// network interface (RoCE and iWARP devices have one; InfiniBand's IPoIB may).

#include <optional>
#include <string>

namespace rdmabench::sweep_cli {

/// The first IPv4 address of the netdev behind `device` port `port`, or why
/// there is none (the error names the device and what to pass instead).
struct DeviceAddress {
  std::string address;
  std::string error;
};
DeviceAddress device_ipv4(const std::string& device, int port = 1);

}  // namespace rdmabench::sweep_cli
