// The topology from recorded sysfs trees (tests/data/topology, written by
// make-fixtures there): devices, GPUs, PCIe paths, and the nvidia-smi
// relationship of each GPU-NIC pair.
#include "catch2_compat.hpp"

#include <sys/socket.h>

#include <sstream>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/topology/path_ceiling.hpp"
#include "rdmabench/topology/topology.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;

namespace {

std::filesystem::path sysfs_fixture(const std::string& name) {
  return std::filesystem::path(RDMABENCH_TEST_DATA) / "topology" / name;
}

/// The one GPU and the named NIC of a sysfs_fixture, classified.
std::string gpu_to(const Topology& t, const std::string& nic) {
  REQUIRE(t.gpus.size() == 1);
  const RdmaDevice* device = find_rdma_device(t, nic);
  REQUIRE(device != nullptr);
  const auto r = relationship(t.gpus[0], *device);
  REQUIRE(r.has_value());
  return to_string(*r);
}

PciLocation at(const std::string& host_bridge, std::vector<std::string> path) {
  return {path.back(), host_bridge, std::move(path)};
}

}  // namespace

TEST_CASE("topology: GPU and NIC below one PCIe switch are PIX", "[topology]") {
  const auto t = scan_topology(sysfs_fixture("pix"));
  CHECK(gpu_to(t, "mlx5_0") == "PIX");
  const auto& gpu = t.gpus[0];
  CHECK(gpu.vendor == "NVIDIA");
  CHECK(gpu.vendor_id == "0x10de");
  CHECK(gpu.device_id == "0x2330");
  CHECK(gpu.pci.address == "0000:03:00.0");
  CHECK(gpu.pci.host_bridge == "pci0000:00");
  CHECK(gpu.pci.path ==
        std::vector<std::string>{"0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"});
  CHECK(gpu.numa_node == 0);
  REQUIRE(t.rdma_devices.size() == 1);
  const auto& nic = t.rdma_devices[0];
  CHECK_FALSE(nic.is_virtual());
  CHECK(nic.pci->address == "0000:04:00.0");
  CHECK(nic.netdev == "ibp4s0");
  CHECK(nic.numa_node == 0);
}

TEST_CASE("topology: a BMC's VGA adapter is not a GPU", "[topology]") {
  // pix also holds an ASPEED VGA function (class 0x0300, vendor 0x1a03).
  const auto t = scan_topology(sysfs_fixture("pix"));
  REQUIRE(t.gpus.size() == 1);
  CHECK(t.gpus[0].pci.address != "0000:05:00.0");
}

TEST_CASE("topology: switches below a common switch are PXB", "[topology]") {
  CHECK(gpu_to(scan_topology(sysfs_fixture("pxb")), "mlx5_0") == "PXB");
}

TEST_CASE("topology: switches on two root ports of one root complex are PHB", "[topology]") {
  const auto t = scan_topology(sysfs_fixture("phb"));
  CHECK(gpu_to(t, "mlx5_0") == "PHB");
  CHECK(t.gpus[0].vendor == "AMD");  // class 0x0380, as some Instinct cards report
}

TEST_CASE("topology: root complexes of one NUMA node are NODE", "[topology]") {
  // numa_node reads -1 there, but the machine has one node: node 0.
  const auto t = scan_topology(sysfs_fixture("node"));
  CHECK(gpu_to(t, "mlx5_0") == "NODE");
  CHECK(t.gpus[0].numa_node == 0);
}

TEST_CASE("topology: across sockets is SYS, another root complex of the GPU's node is NODE",
          "[topology]") {
  const auto t = scan_topology(sysfs_fixture("sys"));
  CHECK(gpu_to(t, "mlx5_0") == "SYS");
  CHECK(gpu_to(t, "mlx5_1") == "NODE");
  CHECK(find_rdma_device(t, "mlx5_0")->numa_node == 1);
}

TEST_CASE("topology: a machine without GPU or RDMA device gives empty lists", "[topology]") {
  const auto t = scan_topology(sysfs_fixture("empty"));  // holds qemu's bochs VGA: not a GPU
  CHECK(t.rdma_devices.empty());
  CHECK(t.gpus.empty());
  const auto j = to_json(t);
  CHECK(j["rdma_devices"] == nlohmann::json::array());
  CHECK(j["gpus"] == nlohmann::json::array());
  CHECK(j["matrix"] == nlohmann::json::array());
  std::ostringstream out;
  print_topology(out, t);
  CHECK_THAT(out.str(), Catch::Contains("RDMA devices: none"));
  CHECK_THAT(out.str(), Catch::Contains("GPUs: none"));
}

TEST_CASE("topology: soft devices are virtual and name their netdev when sysfs does", "[topology]") {
  const auto t = scan_topology(sysfs_fixture("soft_lab"));
  REQUIRE(t.rdma_devices.size() == 2);
  CHECK(t.rdma_devices[0].name == "rxe0");
  CHECK(t.rdma_devices[0].is_virtual());
  CHECK(t.rdma_devices[0].netdev == "eth0");
  CHECK(t.rdma_devices[1].name == "siw0");
  CHECK(t.rdma_devices[1].is_virtual());
  CHECK(t.rdma_devices[1].netdev.empty());  // siw keeps it out of sysfs
  Gpu gpu;
  gpu.pci = at("pci0000:00", {"0000:00:01.0", "0000:01:00.0"});
  CHECK_FALSE(relationship(gpu, t.rdma_devices[0]).has_value());
}

TEST_CASE("topology: a directory that is not sysfs is refused by name", "[topology]") {
  const auto missing = sysfs_fixture("no-such-machine");
  REQUIRE_THROWS_MATCHES(scan_topology(missing), Error,
                         test::MessageContains("'" + missing.string() + "' is not a sysfs tree"));
}

TEST_CASE("topology: JSON matrix names each pair's relationship", "[topology]") {
  const auto j = to_json(scan_topology(sysfs_fixture("sys")));
  REQUIRE(j["matrix"].size() == 2);
  CHECK(j["matrix"][0]["nic"] == "mlx5_0");
  CHECK(j["matrix"][0]["relationship"] == "SYS");
  CHECK(j["matrix"][1]["nic"] == "mlx5_1");
  CHECK(j["matrix"][1]["relationship"] == "NODE");
  CHECK(j["gpus"][0]["pci_address"] == "0000:01:00.0");
  CHECK(j["rdma_devices"][0]["numa_node"] == 1);
  CHECK(j["legend"]["PXB"] == describe(PciRelationship::pxb));
}

TEST_CASE("topology: PCI location of a resolved sysfs path", "[topology]") {
  const auto l = pci_location("/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0");
  REQUIRE(l.has_value());
  CHECK(l->host_bridge == "pci0000:3a");
  CHECK(l->address == "0000:3b:00.0");
  CHECK(l->path == std::vector<std::string>{"0000:3a:00.0", "0000:3b:00.0"});
  // Hyper-V puts the PCI tree below its vmbus; the last host bridge counts.
  const auto hv = pci_location("/sys/devices/LNXSYSTM:00/VMBUS:00/abcd/pci7870:00/7870:00:00.0");
  REQUIRE(hv.has_value());
  CHECK(hv->host_bridge == "pci7870:00");
  CHECK_FALSE(pci_location("/sys/devices/virtual/infiniband/rxe0").has_value());
  CHECK_FALSE(pci_location("/sys/devices/pci0000:00").has_value());
}

TEST_CASE("topology: classification by path alone", "[topology]") {
  const auto gpu = at("pci0000:00", {"0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"});
  // Another function of the same device: one bridge apart.
  CHECK(classify(gpu, 0, at("pci0000:00", {"0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.1"}), 0) ==
        PciRelationship::pix);
  // Directly on another root port: no switch in common.
  CHECK(classify(gpu, 0, at("pci0000:00", {"0000:00:02.0", "0000:04:00.0"}), 0) == PciRelationship::phb);
  // Another root complex: the NUMA nodes decide; unknown ones prove nothing.
  const auto far = at("pci0000:80", {"0000:80:01.0", "0000:81:00.0"});
  CHECK(classify(gpu, 0, far, 0) == PciRelationship::node);
  CHECK(classify(gpu, 0, far, 1) == PciRelationship::sys);
  CHECK(classify(gpu, std::nullopt, far, 0) == PciRelationship::sys);
}

TEST_CASE("topology: PCIe links, MaxPayload where config space is readable, port rates", "[topology][pcie]") {
  const auto t = scan_topology(sysfs_fixture("degraded"));
  const RdmaDevice* narrow = find_rdma_device(t, "mlx5_0");
  REQUIRE(narrow != nullptr);
  REQUIRE(narrow->link.has_value());
  CHECK(narrow->link->speed_gts == 16.0);
  CHECK(narrow->link->width == 8);
  CHECK(narrow->link->max_speed_gts == 32.0);
  CHECK(narrow->link->max_width == 16);
  CHECK(narrow->link->max_payload_bytes == 256u);
  CHECK(narrow->link->max_read_request_bytes == 4096u);
  REQUIRE(narrow->ports.size() == 1);
  CHECK(narrow->ports[0].rate == "400 Gb/sec (4X NDR)");
  CHECK(narrow->ports[0].link_layer == "InfiniBand");
  const RdmaDevice* roce = find_rdma_device(t, "mlx5_1");
  CHECK(roce->netdev_mtu == 9000u);
  CHECK_FALSE(trained_below_max(*roce->link));
  // The GPU's config space reads 64 bytes, as for a user who is not root.
  REQUIRE(t.gpus.size() == 1);
  REQUIRE(t.gpus[0].link.has_value());
  CHECK_FALSE(t.gpus[0].link->max_payload_bytes.has_value());
  CHECK(describe(*t.gpus[0].link) == "Gen5 x16, MPS not readable, MRRS not readable");
  // The older trees record no link: none is made up.
  CHECK_FALSE(find_rdma_device(scan_topology(sysfs_fixture("sys")), "mlx5_0")->link.has_value());
  // rxe0's recorded port has a GID table but no rate: an empty rate, not a guess.
  const auto soft = scan_topology(sysfs_fixture("soft_lab"));
  REQUIRE(soft.rdma_devices[0].ports.size() == 1);
  CHECK(soft.rdma_devices[0].ports[0].rate.empty());
  CHECK_FALSE(soft.rdma_devices[0].link.has_value());
}

TEST_CASE("topology: a link trained below its maximum is warned of, on the console and in JSON",
          "[topology][pcie]") {
  const auto t = scan_topology(sysfs_fixture("degraded"));
  std::ostringstream out;
  print_topology(out, t);
  CHECK_THAT(out.str(), Catch::Contains("mlx5_0       PCIe Gen4 x8 (max Gen5 x16), MPS 256, MRRS 4096"));
  CHECK_THAT(out.str(), Catch::Contains("Warning: mlx5_0 (PCI 0000:02:00.0) trained its PCIe link at Gen4 x8, "
                                        "below its maximum Gen5 x16"));
  CHECK_THAT(out.str(), !Catch::Contains("Warning: mlx5_1"));
  const auto j = to_json(t);
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["rdma_devices"][0]["pcie_link"]["trained_below_max"] == true);
  CHECK(j["rdma_devices"][0]["pcie_link"]["max_payload_bytes"] == 256);
  CHECK(j["gpus"][0]["pcie_link"]["max_payload_bytes"].is_null());
  const auto& achievable = j["rdma_devices"][0]["ports"][0]["achievable"];
  CHECK(achievable["limited_by"] == "device_pcie");
  CHECK(achievable["limited_by_text"] == "PCIe Gen4 x8");
  CHECK(achievable["Gbps"].get<double>() == Approx(achievable["device_pcie"]["Gbps"].get<double>()));
  CHECK(j["rdma_devices"][1]["ports"][0]["achievable"]["limited_by"] == "port");
}

TEST_CASE("topology: a run's path ceiling, with GPU memory and on a soft device", "[topology][ceiling]") {
  const auto t = scan_topology(sysfs_fixture("degraded"));
  // mlx5_1 at Gen5 x16 with the GPU at Gen5 x16 but an unreadable MPS:
  // 256 B assumed, still above the 200 Gb/s port.
  const auto gpu_path = path_ceiling(t, "mlx5_1", 1, PacketHeaders::roce_v2_ipv6, 4096, "0000:01:00.0");
  REQUIRE(gpu_path.ceiling.has_value());
  CHECK(gpu_path.ceiling->limited_by == CeilingLimit::port);
  CHECK(gpu_path.ceiling->port->headers == PacketHeaders::roce_v2_ipv6);
  REQUIRE(gpu_path.ceiling->gpu_pcie.has_value());
  CHECK(gpu_path.ceiling->gpu_pcie->payload_assumed);
  CHECK(gpu_path.gpu_link.has_value());
  CHECK(gpu_path.warnings.empty());
  const auto narrow = path_ceiling(t, "mlx5_0", 1, PacketHeaders::infiniband, 2048);
  CHECK(narrow.ceiling->limited_by == CeilingLimit::device_pcie);
  CHECK_FALSE(narrow.ceiling->port->mtu_assumed);
  REQUIRE(narrow.warnings.size() == 1);
  // A soft device: the port alone, and the summary says why.
  Topology soft;
  RdmaDevice rxe;
  rxe.name = "rxe0";
  rxe.ports.push_back({1, "10 Gb/sec (1X QDR)", "Ethernet"});
  soft.rdma_devices.push_back(rxe);
  const auto path = path_ceiling(soft, "rxe0", 1, PacketHeaders::roce_v2_ipv4, 1024);
  CHECK(path.soft_device);
  REQUIRE(path.ceiling.has_value());
  CHECK(path.ceiling->gbps == Approx(10.0 * 1024 / (1024 + 82)));
  CHECK_THAT(describe(path), Catch::EndsWith("soft device: no PCIe link, the port's rate alone"));
  CHECK_FALSE(path_ceiling(soft, "rxe0", 2, PacketHeaders::roce_v2_ipv4, 1024).ceiling.has_value());
}

TEST_CASE("topology: a run's IP header by its GID, or on iWARP by rdma_cm's address family",
          "[topology][ceiling]") {
  Transport roce;
  roce.kind = TransportKind::roce_v2;
  roce.gid.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 15};  // ::ffff:10.0.2.15
  CHECK(packet_headers(roce) == PacketHeaders::roce_v2_ipv4);
  roce.gid.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56};
  CHECK(packet_headers(roce) == PacketHeaders::roce_v2_ipv6);
  // siw's GID is its MAC (c299:e62a:aa1c::): it says nothing of the IP the
  // connection uses, which rdma_cm's address does.
  Transport iwarp;
  iwarp.kind = TransportKind::iwarp;
  iwarp.gid.gid = {0xc2, 0x99, 0xe6, 0x2a, 0xaa, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(packet_headers(iwarp, AF_INET) == PacketHeaders::iwarp_ipv4);
  CHECK(packet_headers(iwarp, AF_INET6) == PacketHeaders::iwarp_ipv6);
  CHECK(packet_headers(iwarp) == PacketHeaders::iwarp_ipv4);
}
