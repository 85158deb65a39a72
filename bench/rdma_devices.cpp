// rdma_devices: every RDMA device and port on this machine, classified by the
// library's own transport rules (resolve_transport), so that scripts such as
// tools/transport-shootout never guess a fabric from a device's name.
#include <fmt/format.h>
#include <infiniband/verbs.h>

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "rdmabench/verbs/device.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/version.hpp"

namespace {

using namespace rdmabench;

const char* atomic_cap_name(ibv_atomic_cap cap) {
  switch (cap) {
    case IBV_ATOMIC_NONE: return "NONE";
    case IBV_ATOMIC_HCA: return "HCA";
    case IBV_ATOMIC_GLOB: return "GLOB";
  }
  return "unknown";
}

nlohmann::json describe_port(ibv_context* context, std::uint8_t port) {
  nlohmann::json j = {{"port", port}};
  try {
    // The same defaults a benchmark without -x uses towards an IPv4 peer.
    const PortAttributes p = query_port(context, port);
    const Transport t = resolve_transport(p, std::nullopt, AddressFamily::ipv4);
    j["transport"] = to_string(t.kind);
    j["link_layer"] = p.link_layer == LinkLayer::infiniband ? "InfiniBand" : "Ethernet";
    j["active_mtu_bytes"] = p.active_mtu_bytes;
    j["max_message_bytes"] = p.max_message_bytes;
    j["lid"] = p.lid;
    j["gid"] = {{"index", t.gid.index}, {"value", format_gid(t.gid.gid)},
                {"type", to_string(t.gid.type)}, {"reason", t.gid_reason}};
    j["requires_rdma_cm"] = t.requires_rdma_cm;
  } catch (const Error& e) {
    j["error"] = e.what();  // a port that is down is reported, not skipped
  }
  return j;
}

nlohmann::json describe_device(ibv_device* device) {
  const std::string name = ibv_get_device_name(device);
  nlohmann::json j = {{"device", name}, {"node_type", ibv_node_type_str(device->node_type)}};
  Context context(ibv_open_device(device));
  if (!context) {
    j["error"] = fmt::format("ibv_open_device({}) failed: {}", name, std::strerror(errno));
    return j;
  }
  ibv_device_attr a{};
  if (int rc = ibv_query_device(context.get(), &a); rc != 0) {
    j["error"] = fmt::format("ibv_query_device({}) failed: {}", name, std::strerror(rc));
    return j;
  }
  j["attributes"] = {{"fw_ver", a.fw_ver},           {"vendor_id", a.vendor_id},
                     {"vendor_part_id", a.vendor_part_id}, {"hw_ver", a.hw_ver},
                     {"phys_port_cnt", a.phys_port_cnt}, {"max_qp", a.max_qp},
                     {"max_qp_wr", a.max_qp_wr},     {"max_cqe", a.max_cqe},
                     {"max_sge", a.max_sge},         {"max_mr_size", a.max_mr_size},
                     {"atomic_cap", atomic_cap_name(a.atomic_cap)}};
  j["ports"] = nlohmann::json::array();
  for (int port = 1; port <= a.phys_port_cnt; ++port)
    j["ports"].push_back(describe_port(context.get(), static_cast<std::uint8_t>(port)));
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string arg = argc > 1 ? argv[1] : "";
  if (argc == 2 && arg == "--version") {
    print_version("rdma_devices");
    return 0;
  }
  if (argc > 2 || (!arg.empty() && arg != "--json")) {
    const bool asked = arg == "-h" || arg == "--help";
    (asked ? std::cout : std::cerr)
        << "Usage: rdma_devices [--json | --version | --help]\n"
           "Lists every RDMA device and port with the transport the benchmarks would\n"
           "use on it (InfiniBand, RoCEv1, RoCEv2 or iWARP).\n\n"
           "Options:\n"
           "  --json     print one JSON document instead of a line per port\n"
           "  --version  show the version and the rdma-core it was built against\n"
           "  -h, --help show this help\n";
    return asked ? 0 : 2;
  }
  nlohmann::json out = {{"version", kVersion}, {"devices", nlohmann::json::array()}};
  int count = 0;
  DeviceList list(ibv_get_device_list(&count));
  // No devices is an answer, not an error: the list is simply empty.
  for (int i = 0; list && i < count; ++i) out["devices"].push_back(describe_device(list.get()[i]));
  if (arg == "--json") {
    std::cout << out.dump(1) << '\n';
    return 0;
  }
  if (count == 0) std::cout << "no RDMA devices on this machine\n";
  for (const auto& d : out["devices"]) {
    for (const auto& p : d.value("ports", nlohmann::json::array())) {
      if (p.contains("error"))
        std::cout << fmt::format("{} port {}: {}\n", d["device"].get<std::string>(),
                                 p["port"].get<int>(), p["error"].get<std::string>());
      else
        std::cout << fmt::format("{} port {}: {} (GID {} {}, MTU {})\n", d["device"].get<std::string>(),
                                 p["port"].get<int>(), p["transport"].get<std::string>(),
                                 p["gid"]["index"].get<int>(), p["gid"]["type"].get<std::string>(),
                                 p["active_mtu_bytes"].get<int>());
    }
    if (d.contains("error")) std::cout << d["device"].get<std::string>() << ": " << d["error"].get<std::string>() << '\n';
  }
  return 0;
}
