#include "sweep/device_address.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <filesystem>
#include <fstream>

namespace rdmabench::sweep_cli {

namespace {

/// siw names no netdev in sysfs, but its GID is its netdev's MAC address
/// followed by zeros: the interface whose address matches.
std::string netdev_by_mac(const std::string& device_dir, int port) {
  std::ifstream gid_file(fmt::format("{}/ports/{}/gids/0", device_dir, port));
  std::string gid;  // "0252:5400:1234:0000:..."
  if (!(gid_file >> gid) || gid.size() < 14) return {};
  std::string mac;
  for (char c : gid.substr(0, 14))
    if (c != ':') mac += c;
  if (mac == "000000000000") return {};
  for (const auto& net : std::filesystem::directory_iterator("/sys/class/net")) {
    std::ifstream address_file(net.path() / "address");
    std::string address, digits;
    address_file >> address;
    for (char c : address)
      if (c != ':') digits += c;
    if (digits == mac) return net.path().filename().string();
  }
  return {};
}

/// The netdev sysfs names for the port's first GID (RoCE: eth0; iWARP's
/// devices have no gid_attrs and fall back to the device's own net/ folder).
std::string netdev_of(const std::string& device, int port) {
  const std::string base = "/sys/class/infiniband/" + device;
  std::ifstream ndev(fmt::format("{}/ports/{}/gid_attrs/ndevs/0", base, port));
  std::string name;
  if (ndev >> name) return name;
  std::ifstream parent(base + "/parent");
  if (parent >> name) return name;
  return netdev_by_mac(base, port);
}

std::string first_ipv4(const std::string& netdev) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::string found;
  for (auto* a = list; a && found.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || netdev != a->ifa_name) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) found = text;
  }
  ::freeifaddrs(list);
  return found;
}

}  // namespace

DeviceAddress device_ipv4(const std::string& device, int port) {
  const std::string netdev = netdev_of(device, port);
  if (netdev.empty())
    return {{}, fmt::format("{} port {} has no network interface in sysfs; give this rank's address with --address",
                            device, port)};
  const std::string address = first_ipv4(netdev);
  if (address.empty())
    return {{}, fmt::format("{}'s interface {} has no IPv4 address; give this rank's address with --address",
                            device, netdev)};
  return {address, {}};
}

}  // namespace rdmabench::sweep_cli
