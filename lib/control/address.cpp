#include "control/address.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>

#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

AddressList resolve_address(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    throw Error(fmt::format("cannot resolve server address '{}': {}", host, ::gai_strerror(rc)),
                "give the server's IP address or a resolvable host name");
  return AddressList(found, ::freeaddrinfo);
}

std::string numeric_host(const sockaddr* address) {
  if (!address) return {};
  const socklen_t length = address->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  char host[NI_MAXHOST];
  if (::getnameinfo(address, length, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return {};
  std::string h = host;
  if (h.rfind("::ffff:", 0) == 0 && h.find('.') != std::string::npos) h = h.substr(7);
  return h;
}

sockaddr_storage listen_address(const std::string& host, std::uint16_t port, bool ipv6_available) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (host.empty() && ipv6_available) {
    v6->sin6_family = AF_INET6;
    v6->sin6_addr = in6addr_any;
    v6->sin6_port = htons(port);
  } else if (host.empty()) {
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = htonl(INADDR_ANY);
    v4->sin_port = htons(port);
  } else if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
  } else {
    throw Error(fmt::format("--bind {} is not an IP address", host),
                "give one of this host's addresses, such as 10.0.2.15 or 2001:db8::1");
  }
  return storage;
}

sockaddr_storage free_tcp_source(int family, const std::string& source) {
  sockaddr_storage address{};
  address.ss_family = static_cast<sa_family_t>(family);
  const socklen_t length = family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (!source.empty()) {
    void* where = family == AF_INET6 ? static_cast<void*>(&reinterpret_cast<sockaddr_in6&>(address).sin6_addr)
                                     : static_cast<void*>(&reinterpret_cast<sockaddr_in&>(address).sin_addr);
    if (::inet_pton(family, source.c_str(), where) != 1)
      throw Error(fmt::format("the source address '{}' is not a numeric {} address", source,
                              family == AF_INET6 ? "IPv6" : "IPv4"),
                  "give an address of this host of the server's family");
  }
  FileDescriptor probe(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (probe.get() < 0) throw_system_error("socket (choosing a source port)", errno);
  // Bound to port 0 and closed unconnected: the port is free again at once,
  // with nothing left in TIME_WAIT.
  if (::bind(probe.get(), reinterpret_cast<const sockaddr*>(&address), length) != 0) {
    if (!source.empty() && errno == EADDRNOTAVAIL)
      throw Error(fmt::format("the source address {} is not one of this host's", source),
                  "give an address of one of this host's network interfaces");
    throw_system_error("bind (choosing a source port)", errno);
  }
  socklen_t got = sizeof address;
  if (::getsockname(probe.get(), reinterpret_cast<sockaddr*>(&address), &got) != 0)
    throw_system_error("getsockname (choosing a source port)", errno);
  return address;
}

}  // namespace rdmabench::detail
