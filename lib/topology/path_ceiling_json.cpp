// The ceiling and the links as JSON: every figure the arithmetic used, so
// that a script can redo it (docs/json-output.md lists the fields).
#include "rdmabench/topology/path_ceiling.hpp"

namespace rdmabench {

namespace {

template <typename T>
nlohmann::json value_or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json port_json(const PortCeiling& p) {
  return {{"rate_Gbps", p.rate_gbps},       {"encoding", p.encoding.empty() ? nlohmann::json() : nlohmann::json(p.encoding)},
          {"data_Gbps", p.data_gbps},       {"headers", to_string(p.headers)},
          {"mtu_bytes", p.mtu_bytes},       {"mtu_assumed", p.mtu_assumed},
          {"overhead_bytes", p.overhead_bytes}, {"Gbps", p.gbps}};
}

nlohmann::json pcie_json(const PcieCeiling& p) {
  return {{"generation", p.generation},
          {"lanes", p.lanes},
          {"encoding", p.encoding},
          {"encoded_Gbps", p.encoded_gbps},
          {"tlp_payload_bytes", p.tlp_payload_bytes},
          {"tlp_payload_assumed", p.payload_assumed},
          {"tlp_overhead_bytes", p.tlp_overhead_bytes},
          {"Gbps", p.gbps}};
}

const char* limit_name(CeilingLimit limit) {
  switch (limit) {
    case CeilingLimit::port: return "port";
    case CeilingLimit::device_pcie: return "device_pcie";
    case CeilingLimit::gpu_pcie: return "gpu_pcie";
  }
  return "?";
}

}  // namespace

nlohmann::json to_json(const PcieLink& link) {
  return {{"speed_GTps", value_or_null(link.speed_gts)},
          {"width", value_or_null(link.width)},
          {"max_speed_GTps", value_or_null(link.max_speed_gts)},
          {"max_width", value_or_null(link.max_width)},
          {"max_payload_bytes", value_or_null(link.max_payload_bytes)},
          {"max_read_request_bytes", value_or_null(link.max_read_request_bytes)},
          {"trained_below_max", trained_below_max(link)},
          {"text", describe(link)}};
}

nlohmann::json to_json(const PathCeiling& path) {
  const auto& c = path.ceiling;
  return {{"Gbps", c ? nlohmann::json(c->gbps) : nlohmann::json()},
          {"limited_by", c ? nlohmann::json(limit_name(c->limited_by)) : nlohmann::json()},
          {"limited_by_text", c ? nlohmann::json(limit_text(*c)) : nlohmann::json()},
          {"port_rate", path.port_rate},
          {"port", c && c->port ? port_json(*c->port) : nlohmann::json()},
          {"device_pcie", c && c->device_pcie ? pcie_json(*c->device_pcie) : nlohmann::json()},
          {"gpu_pcie", c && c->gpu_pcie ? pcie_json(*c->gpu_pcie) : nlohmann::json()},
          {"device_link", path.device_link ? to_json(*path.device_link) : nlohmann::json()},
          {"gpu_link", path.gpu_link ? to_json(*path.gpu_link) : nlohmann::json()},
          {"soft_device", path.soft_device},
          {"summary", describe(path)},
          {"warnings", path.warnings}};
}

}  // namespace rdmabench
