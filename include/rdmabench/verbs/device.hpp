#pragma once
/// @file
/// Finding and opening RDMA devices, and reading a port's attributes.

#include <string>
#include <vector>

#include "rdmabench/verbs/resources.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench {

/// Opens `name`, or the first device when `name` is empty. Errors name the
/// devices that do exist, or how to get one when there are none.
Context open_device(const std::string& name);

/// The device whose port `port` has `gid` in its GID table (the first such
/// device), or empty: how --source-ip without -d finds its device. Devices
/// that cannot be opened, or whose port is not active, are passed over.
std::string device_holding_gid(const Gid& gid, std::uint8_t port);

/// Reads a port's attributes and its valid GID table entries. Errors list the
/// valid port numbers.
PortAttributes query_port(ibv_context* context, std::uint8_t port);

/// Entries to make room for in ibv_query_gid_table, which returns every
/// port's GIDs at once: the sum of the ports' gid_tbl_len (at least 1).
std::size_t gid_table_capacity(const std::vector<int>& per_port_lengths);

/// ibv_mtu enum to bytes and back.
std::uint32_t mtu_bytes(ibv_mtu mtu);
ibv_mtu mtu_enum(std::uint32_t bytes);

}  // namespace rdmabench
