#include "rdmabench/verbs/device.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstring>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

namespace {

const char* kNoDeviceHint =
    "load a soft device (modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0) "
    "or run the benchmark inside tools/rdma-lab";

GidType gid_type_of(std::uint32_t verbs_type) {
  switch (verbs_type) {
    case IBV_GID_TYPE_ROCE_V1: return GidType::roce_v1;
    case IBV_GID_TYPE_ROCE_V2: return GidType::roce_v2;
    default: return GidType::ib;
  }
}

}  // namespace

Context open_device(const std::string& name) {
  int count = 0;
  DeviceList list(ibv_get_device_list(&count));
  if (!list) throw_system_error("ibv_get_device_list", errno, kNoDeviceHint);
  if (count == 0) throw Error("no RDMA devices found on this machine", kNoDeviceHint);
  ibv_device* chosen = nullptr;
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    names.emplace_back(ibv_get_device_name(list.get()[i]));
    if (!chosen && (name.empty() || names.back() == name)) chosen = list.get()[i];
  }
  if (!chosen)
    throw Error(fmt::format("unknown RDMA device '{}'; available: {}", name,
                            fmt::join(names, ", ")),
                "choose one with -d/--ib-dev");
  Context context(ibv_open_device(chosen));
  if (!context) throw_system_error("ibv_open_device(" + names.back() + ")", errno);
  return context;
}

std::string device_holding_gid(const Gid& gid, std::uint8_t port) {
  int count = 0;
  DeviceList list(ibv_get_device_list(&count));
  for (int i = 0; list && i < count; ++i) {
    Context context(ibv_open_device(list.get()[i]));
    if (!context) continue;
    try {
      const PortAttributes attributes = query_port(context.get(), port);
      for (const GidEntry& entry : attributes.gids)
        if (entry.gid == gid) return attributes.device;
    } catch (const Error&) {
      // No such port, or not active: not this one.
    }
  }
  return {};
}

std::size_t gid_table_capacity(const std::vector<int>& per_port_lengths) {
  std::size_t total = 0;
  for (int length : per_port_lengths) total += static_cast<std::size_t>(std::max(length, 0));
  return std::max<std::size_t>(total, 1);
}

namespace {

/// Every port's gid_tbl_len, port 1 first: ibv_query_gid_table fills in the
/// entries of all ports at once and fails if they do not all fit.
std::vector<int> gid_table_lengths(ibv_context* context, const std::string& device, int ports) {
  std::vector<int> lengths;
  for (int p = 1; p <= ports; ++p) {
    ibv_port_attr attr{};
    if (int rc = ibv_query_port(context, static_cast<std::uint8_t>(p), &attr); rc != 0)
      throw_system_error(fmt::format("ibv_query_port({} port {})", device, p), rc);
    lengths.push_back(attr.gid_tbl_len);
  }
  return lengths;
}

std::vector<GidEntry> valid_gids(ibv_context* context, const std::string& device,
                                 const ibv_device_attr& device_attr, std::uint8_t port) {
  std::vector<ibv_gid_entry> table(
      gid_table_capacity(gid_table_lengths(context, device, device_attr.phys_port_cnt)));
  ssize_t n = ibv_query_gid_table(context, table.data(), table.size(), 0);
  if (n < 0) throw_system_error("ibv_query_gid_table(" + device + ")", static_cast<int>(-n));
  std::vector<GidEntry> gids;
  for (ssize_t i = 0; i < n; ++i) {
    const auto& e = table[static_cast<std::size_t>(i)];
    if (e.port_num != port) continue;
    GidEntry g;
    g.index = e.gid_index;
    std::memcpy(g.gid.data(), e.gid.raw, 16);
    g.type = gid_type_of(e.gid_type);
    gids.push_back(g);
  }
  return gids;
}

}  // namespace

std::uint32_t mtu_bytes(ibv_mtu mtu) { return 128u << static_cast<int>(mtu); }

ibv_mtu mtu_enum(std::uint32_t bytes) {
  for (int m = IBV_MTU_4096; m >= IBV_MTU_256; --m)
    if (mtu_bytes(static_cast<ibv_mtu>(m)) <= bytes) return static_cast<ibv_mtu>(m);
  return IBV_MTU_256;
}

PortAttributes query_port(ibv_context* context, std::uint8_t port) {
  const std::string device = ibv_get_device_name(context->device);
  ibv_device_attr device_attr{};
  if (int rc = ibv_query_device(context, &device_attr); rc != 0)
    throw_system_error("ibv_query_device(" + device + ")", rc);
  if (port < 1 || port > device_attr.phys_port_cnt)
    throw Error(fmt::format("port {} does not exist on {}; valid: 1-{}", port, device,
                            device_attr.phys_port_cnt),
                "choose one with -i/--ib-port");
  ibv_port_attr attr{};
  if (int rc = ibv_query_port(context, port, &attr); rc != 0)
    throw_system_error(fmt::format("ibv_query_port({} port {})", device, port), rc);
  require(attr.state == IBV_PORT_ACTIVE,
          fmt::format("{} port {} is {}, not ACTIVE", device, port,
                      ibv_port_state_str(attr.state)),
          "check the link (rdma link show; ibstat)");

  PortAttributes p;
  p.device = device;
  p.port = port;
  p.iwarp = context->device->transport_type == IBV_TRANSPORT_IWARP;
  p.link_layer = attr.link_layer == IBV_LINK_LAYER_INFINIBAND ? LinkLayer::infiniband
                                                               : LinkLayer::ethernet;
  p.lid = attr.lid;
  p.active_mtu_bytes = mtu_bytes(attr.active_mtu);
  p.max_message_bytes = std::min<std::uint64_t>(attr.max_msg_sz, device_attr.max_mr_size);

  p.pkey_table_length = attr.pkey_tbl_len;
  p.gids = valid_gids(context, device, device_attr, port);
  return p;
}

}  // namespace rdmabench
