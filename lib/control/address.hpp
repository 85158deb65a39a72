#pragma once
// Host name resolution shared by the TCP control connection and rdma_cm.

#include <netdb.h>

#include <cstdint>
#include <memory>
#include <string>

namespace rdmabench::detail {

using AddressList = std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)>;

/// Every stream address of `host`:`port`; throws an Error naming the host.
AddressList resolve_address(const std::string& host, std::uint16_t port);

}  // namespace rdmabench::detail
