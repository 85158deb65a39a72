#pragma once
// GIDs the transport tests share: one IPv4-mapped RoCEv2 GID and one IPv6.

#include "rdmabench/verbs/transport.hpp"

namespace rdmabench::test {

inline const Gid kIpv4{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 15};  // ::ffff:10.0.2.15
inline const Gid kIpv6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x15};  // 2001:db8::15

}  // namespace rdmabench::test
