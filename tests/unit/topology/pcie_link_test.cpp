// A PCI function's link from sysfs text and config-space bytes.
#include "catch2_compat.hpp"

#include "rdmabench/topology/pcie_link.hpp"

using namespace rdmabench;

namespace {

/// A config space with power management at 0x40 and PCI Express at 0x60,
/// its Device Control (0x68) set to `control`.
std::vector<std::uint8_t> config_with_control(unsigned control) {
  std::vector<std::uint8_t> config(256, 0);
  config[0x34] = 0x40;
  config[0x40] = 0x01;  // power management
  config[0x41] = 0x60;
  config[0x60] = 0x10;  // PCI Express, the last
  config[0x68] = static_cast<std::uint8_t>(control & 0xff);
  config[0x69] = static_cast<std::uint8_t>(control >> 8);
  return config;
}

PcieLink link_of(double gts, int width, double max_gts, int max_width) {
  PcieLink link;
  link.speed_gts = gts;
  link.width = width;
  link.max_speed_gts = max_gts;
  link.max_width = max_width;
  return link;
}

}  // namespace

TEST_CASE("PCIe link: speed and width as sysfs writes them", "[topology][pcie]") {
  CHECK(parse_link_speed("16.0 GT/s PCIe") == 16.0);
  CHECK(parse_link_speed("8.0 GT/s") == 8.0);
  CHECK(parse_link_speed("2.5 GT/s") == 2.5);
  CHECK(parse_link_speed("8 GT/s PCIe") == 8.0);
  CHECK_FALSE(parse_link_speed("Unknown"));
  CHECK_FALSE(parse_link_speed(""));
  CHECK(parse_link_width("16") == 16);
  CHECK_FALSE(parse_link_width("0"));  // no link trained
  CHECK_FALSE(parse_link_width("x16"));
  CHECK(pcie_generation(2.5) == 1);
  CHECK(pcie_generation(5.0) == 2);
  CHECK(pcie_generation(8.0) == 3);
  CHECK(pcie_generation(16.0) == 4);
  CHECK(pcie_generation(32.0) == 5);
  CHECK(pcie_generation(64.0) == 6);
  CHECK(pcie_generation(10.0) == 0);
}

TEST_CASE("PCIe link: MaxPayload and MaxReadReq from Device Control", "[topology][pcie]") {
  // Bits 7:5 and 14:12, each 128 << n: 256 (n = 1) and 4096 (n = 5).
  const auto sizes = read_device_control_sizes(config_with_control(0x5020));
  REQUIRE(sizes.has_value());
  CHECK(sizes->max_payload_bytes == 256);
  CHECK(sizes->max_read_request_bytes == 4096);
  const auto small = read_device_control_sizes(config_with_control(0x2000));  // 128 and 512
  CHECK(small->max_payload_bytes == 128);
  CHECK(small->max_read_request_bytes == 512);
  CHECK_FALSE(read_device_control_sizes(config_with_control(0x00e0)));  // n = 7 is reserved
}

TEST_CASE("PCIe link: a config space that does not reach the capability says nothing", "[topology][pcie]") {
  auto config = config_with_control(0x5020);
  // What a user who is not root reads: the first 64 bytes.
  CHECK_FALSE(read_device_control_sizes({config.begin(), config.begin() + 64}));
  CHECK_FALSE(read_device_control_sizes({}));
  // A list without a PCI Express capability, and one that loops.
  auto no_express = config;
  no_express[0x41] = 0;
  CHECK_FALSE(read_device_control_sizes(no_express));
  auto loop = config;
  loop[0x41] = 0x40;
  loop[0x60] = 0x05;
  CHECK_FALSE(read_device_control_sizes(loop));
}

TEST_CASE("PCIe link: trained below its maximum, and how it is told", "[topology][pcie]") {
  const auto full = link_of(16.0, 16, 16.0, 16);
  CHECK_FALSE(trained_below_max(full));
  CHECK_FALSE(degraded_link_warning(full, "mlx5_0"));
  CHECK(describe(full) == "Gen4 x16, MPS not readable, MRRS not readable");
  auto degraded = link_of(16.0, 8, 32.0, 16);
  degraded.max_payload_bytes = 256;
  degraded.max_read_request_bytes = 4096;
  CHECK(trained_below_max(degraded));
  CHECK(describe(degraded) == "Gen4 x8 (max Gen5 x16), MPS 256, MRRS 4096");
  const auto warning = degraded_link_warning(degraded, "mlx5_0");
  REQUIRE(warning.has_value());
  CHECK_THAT(*warning, Catch::StartsWith("mlx5_0 trained its PCIe link at Gen4 x8, below its maximum Gen5 x16"));
  CHECK_THAT(*warning, !Catch::Contains("idle"));  // narrower is never power saving
  // Slower alone may be an idle GPU saving power: the warning says so.
  CHECK_THAT(*degraded_link_warning(link_of(2.5, 16, 32.0, 16), "GPU0"), Catch::Contains("idle device"));
  CHECK(trained_below_max(link_of(16.0, 8, 16.0, 16)));
  PcieLink unknown;
  unknown.width = 8;
  CHECK_FALSE(trained_below_max(unknown));  // nothing to compare with
  CHECK(describe(unknown) == "unknown speed x8, MPS not readable, MRRS not readable");
}
