#include "control/route_source.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/verbs/error.hpp"
#include "control/address.hpp"

namespace rdmabench::detail {

namespace {

socklen_t length_of(int family) { return family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in); }

/// How the GID line tells where a routed source came from.
std::string route_words(const std::string& source, const std::string& peer) {
  const std::string interface = interface_holding(source);
  return fmt::format("the source of the kernel's route to {}{}", peer,
                     interface.empty() ? "" : ", an address of " + interface);
}

}  // namespace

std::string routed_source(const std::string& peer) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  // Any port: connect() on a UDP socket only looks the route up.
  if (::getaddrinfo(peer.c_str(), "9", &hints, &found) != 0) return {};
  const AddressList addresses(found, ::freeaddrinfo);
  FileDescriptor probe(::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (probe.get() < 0 || ::connect(probe.get(), found->ai_addr, found->ai_addrlen) != 0) return {};
  sockaddr_storage source{};
  socklen_t length = sizeof source;
  if (::getsockname(probe.get(), reinterpret_cast<sockaddr*>(&source), &length) != 0) return {};
  return numeric_host(reinterpret_cast<const sockaddr*>(&source));
}

std::string interface_holding(const std::string& address) {
  const auto wanted = gid_of_address(address);
  ifaddrs* list = nullptr;
  if (!wanted || ::getifaddrs(&list) != 0) return {};
  const std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> owner(list, ::freeifaddrs);
  for (const ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
    if (gid_of_address(numeric_host(i->ifa_addr)) == wanted) return i->ifa_name;
  }
  return {};
}

bool is_loopback_address(const std::string& address) {
  const auto gid = gid_of_address(address);
  if (!gid) return false;
  if (is_ipv4_mapped(*gid)) return (*gid)[12] == 127;
  return *gid == Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
}

void require_host_address(const std::string& address, const char* option) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
  } else if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
  } else {
    throw Error(fmt::format("{} {} is not a numeric IP address", option, address),
                "give one of this host's addresses, such as 10.0.2.15 or 2001:db8::15 (ip -brief address)");
  }
  // Binding port 0 of an address is how the kernel says whether it is ours.
  FileDescriptor probe(::socket(storage.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (probe.get() < 0)
    throw_system_error(fmt::format("socket ({} {})", option, address), errno,
                       storage.ss_family == AF_INET6 ? "this host may have IPv6 turned off" : "");
  if (::bind(probe.get(), reinterpret_cast<const sockaddr*>(&storage), length_of(storage.ss_family)) == 0) return;
  if (errno == EADDRNOTAVAIL)
    throw Error(fmt::format("{} {} is not an address of this host", option, address),
                "give an address of one of this host's network interfaces (ip -brief address lists them)");
  throw_system_error(fmt::format("bind ({} {})", option, address), errno);
}

std::optional<SourceAddress> client_gid_source(const std::string& server, const std::string& source_ip) {
  if (!source_ip.empty()) {
    require_host_address(source_ip);
    return source_address(source_ip, "given with --source-ip", /*required=*/true);
  }
  const std::string routed = routed_source(server);
  if (routed.empty() || is_loopback_address(routed)) return std::nullopt;
  return source_address(routed, route_words(routed, server));
}

std::optional<SourceAddress> server_gid_source(const std::string& local_host, const std::string& client_host) {
  if (!local_host.empty() && !is_loopback_address(local_host))
    return source_address(local_host, "the address the client connected to");
  if (client_host.empty()) return std::nullopt;
  const std::string routed = routed_source(client_host);
  if (routed.empty() || is_loopback_address(routed)) return std::nullopt;
  return source_address(routed, route_words(routed, client_host));
}

}  // namespace rdmabench::detail
