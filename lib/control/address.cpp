#include "control/address.hpp"

#include <fmt/format.h>

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

}  // namespace rdmabench::detail
