#include "sweep/endpoint_context.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "rdmabench/topology/topology.hpp"
#include "rdmabench/verbs/device.hpp"
#include "rdmabench/verbs/error.hpp"
#include "rdmabench/version.hpp"
#include "sweep/device_address.hpp"

namespace rdmabench::sweep_cli {

namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string kernel_release() {
  utsname name{};
  return ::uname(&name) == 0 ? name.release : "unknown";
}

std::string gid_text(const Gid& gid) {
  char text[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET6, gid.data(), text, sizeof text);
  return text;
}

/// The GID an IP address has as a RoCEv2 GID (IPv4 is mapped, ::ffff:a.b.c.d).
std::optional<Gid> gid_of_address(const std::string& address) {
  Gid gid{};
  in_addr v4{};
  if (::inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    gid[10] = gid[11] = 0xff;
    std::memcpy(gid.data() + 12, &v4, 4);
    return gid;
  }
  if (::inet_pton(AF_INET6, address.c_str(), gid.data()) == 1) return gid;
  return std::nullopt;
}

}  // namespace

std::optional<std::uint32_t> gid_index_of_address(const PortAttributes& port, const std::string& address) {
  const auto wanted = gid_of_address(address);
  if (!wanted) return std::nullopt;
  for (const auto& entry : port.gids)
    if (entry.type == GidType::roce_v2 && entry.gid == *wanted) return entry.index;
  return std::nullopt;
}

std::vector<std::string> host_rdma_devices() {
  std::vector<std::string> names;
  for (const auto& device : scan_topology().rdma_devices) names.push_back(device.name);
  return names;
}

sweep::EndpointContext describe_endpoint(const sweep::Endpoint& endpoint, const std::string& address) {
  sweep::EndpointContext c;
  c.endpoint = endpoint;
  const Context context = open_device(endpoint.device);
  const PortAttributes port = query_port(context.get(), static_cast<std::uint8_t>(c.port));
  if (address.empty()) {
    const auto found = device_ipv4(endpoint.device, c.port);
    // rdma_cm (iWARP, or -R) connects to an address; the exchange of
    // attributes needs none.
    if (found.address.empty() && port.iwarp) throw Error(found.error);
    c.address = found.address;
  } else {
    c.address = address;
  }
  if (!address.empty() && !port.iwarp && port.link_layer == LinkLayer::ethernet) {
    const auto index = gid_index_of_address(port, address);
    if (!index)
      throw Error(fmt::format("{} has no RoCEv2 GID for address {}", endpoint.device, address),
                  "give --addresses that are assigned to the device's interface (ip addr add ... dev IF)");
    for (const auto& entry : port.gids)
      if (entry.index == *index) c.gid = gid_text(entry.gid);
  } else {
    // The GID the pair binaries choose by themselves (the client's record
    // replaces its own with the one its run reports).
    c.gid = gid_text(resolve_transport(port, std::nullopt, AddressFamily::ipv4).gid.gid);
  }
  const std::string sysfs = "/sys/class/infiniband/" + endpoint.device;
  c.port_rate_Gbps = parse_port_rate(read_line(fmt::format("{}/ports/{}/rate", sysfs, c.port)));
  c.link_layer = port.iwarp ? "iWARP" : port.link_layer == LinkLayer::ethernet ? "Ethernet" : "InfiniBand";
  c.firmware = read_line(sysfs + "/fw_ver");
  const std::string numa = read_line(sysfs + "/device/numa_node");
  if (!numa.empty() && numa != "-1") c.numa_node = std::stoi(numa);
  c.rdma_core = kRdmaCoreVersion;  // built against
  c.kernel = kernel_release();
  if (const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN); cpus > 0 && cpus <= 1'000'000) c.host_cpus = static_cast<int>(cpus);
  return c;
}

std::string gpu_relation_of(const MemoryChoice& memory, const std::string& device) {
  if (memory.kind == MemoryChoice::Kind::rocm)
    return fmt::format("ROCm device {} (its PCI place is known once a run opens it)", memory.gpu_device);
  if (!memory.is_cuda()) return {};
  if (memory.cuda_bus_id.empty())
    return fmt::format("CUDA device {} (its PCI place is known once a run opens it)", memory.gpu_device);
  const Topology topology = scan_topology();
  const RdmaDevice* nic = find_rdma_device(topology, device);
  for (const auto& gpu : topology.gpus) {
    if (gpu.pci.address != memory.cuda_bus_id) continue;
    const auto relation = nic ? relationship(gpu, *nic) : std::nullopt;
    return relation ? to_string(*relation) : "unknown (no PCI path to " + device + ")";
  }
  return "unknown: GPU " + memory.cuda_bus_id + " is not in sysfs";
}

std::vector<std::string> resolve_auto_gpu(std::vector<std::string> pair_args, const std::string& device) {
  for (std::size_t i = 0; i < pair_args.size(); ++i) {
    std::string& arg = pair_args[i];
    const bool joined = arg == "--mem=cuda:auto";
    const bool separate = arg == "--mem" && i + 1 < pair_args.size() && pair_args[i + 1] == "cuda:auto";
    if (!joined && !separate) continue;
    const Topology topology = scan_topology();
    const RdmaDevice* nic = find_rdma_device(topology, device);
    const Gpu* best = nullptr;
    PciRelationship best_relation = PciRelationship::sys;
    for (const auto& gpu : topology.gpus) {
      if (gpu.vendor != "NVIDIA") continue;
      const auto relation = nic ? relationship(gpu, *nic) : std::nullopt;
      if (!best || (relation && *relation < best_relation)) {
        best = &gpu;
        best_relation = relation.value_or(PciRelationship::sys);
      }
    }
    if (!best)
      throw Error(fmt::format("--mem cuda:auto: no NVIDIA GPU on this host for {}", device),
                  "use --mem host, or run the sweep on hosts with GPUs");
    if (joined) arg = "--mem=cuda";
    else pair_args[i + 1] = "cuda";
    pair_args.insert(pair_args.end(), {"--cuda-bus-id", best->pci.address});
    return pair_args;
  }
  return pair_args;
}

}  // namespace rdmabench::sweep_cli
