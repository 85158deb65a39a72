#include "cli/side_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/verbs/multicast_group.hpp"

namespace po = boost::program_options;

namespace rdmabench::cli {

namespace {

/// A whole number within low..high, or a UsageError naming the option.
long long integer_value(const char* option, const std::string& text, long long low, long long high) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw UsageError(fmt::format("{} {} is not a whole number: expected {} to {}", option, text, low, high));
  require_range(option, value, low, high);
  return value;
}

/// One of `names`, or a UsageError listing them.
template <std::size_t N>
std::size_t choice_value(const char* option, const std::string& text, const std::array<const char*, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    if (text == names[i]) return i;
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) expected += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i]);
  throw UsageError(fmt::format("{} {} is unknown: expected {}", option,
                               text, expected));
}

void apply_mtu(const std::string& text, const po::variables_map&, CommandLine& cl) {
  const long long mtu = integer_value("-m/--mtu", text, 256, 4096);
  if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
    throw UsageError(fmt::format("-m/--mtu {} is invalid: expected 256, 512, 1024, 2048 or 4096", mtu));
  cl.side.qp.mtu_bytes = static_cast<std::uint32_t>(mtu);
}

void apply_service_level(const std::string& text, const po::variables_map&, CommandLine& cl) {
  cl.side.qp.service_level = static_cast<std::uint8_t>(integer_value("--sl", text, 0, 15));
}

void apply_traffic_class(const std::string& text, const po::variables_map&, CommandLine& cl) {
  cl.side.qp.traffic_class = static_cast<std::uint8_t>(integer_value("--tclass", text, 0, 255));
}

void apply_pkey_index(const std::string& text, const po::variables_map&, CommandLine& cl) {
  cl.side.qp.pkey_index = static_cast<std::uint16_t>(integer_value("--pkey-index", text, 0, 65535));
}

void apply_inline_size(const std::string& text, const po::variables_map&, CommandLine& cl) {
  cl.side.qp.inline_bytes = static_cast<std::uint32_t>(integer_value("-I/--inline-size", text, 0, 65536));
}

/// -M/--mgid: a multicast group in any of its forms (multicast_group.hpp).
void apply_multicast_group(const std::string& text, const po::variables_map&, CommandLine& cl) {
  try {
    cl.side.multicast_group = parse_multicast_gid(text);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

/// --mem, with --cuda-bus-id and --gdr, which say more about the same memory.
void apply_memory(const std::string& text, const po::variables_map& vm, CommandLine& cl) {
  MemoryChoice choice;
  try {
    choice = parse_memory_choice(text);
  } catch (const Error& e) {
    throw UsageError(std::string("--mem: ") + e.what());
  }
  if (vm.count("cuda-bus-id")) {
    const auto& bus_id = vm["cuda-bus-id"].as<std::string>();
    if (!choice.is_cuda())
      throw UsageError(fmt::format("--cuda-bus-id applies to --mem cuda or cuda-host; --mem is {}", text));
    if (text.find(':') != std::string::npos)
      throw UsageError(fmt::format("--mem {} and --cuda-bus-id both name a GPU: give --mem {} with "
                                   "--cuda-bus-id, or the ordinal alone",
                                   text, text.substr(0, text.find(':'))));
    if (!is_pci_bus_id(bus_id))
      throw UsageError(fmt::format("--cuda-bus-id {} is not a PCI address: expected BB:DD.F or "
                                   "DDDD:BB:DD.F in hex, such as 3b:00.0 (nvidia-smi -q shows Bus Id)",
                                   bus_id));
    choice.cuda_bus_id = bus_id;
  }
  if (vm.count("gdr")) {
    if (!choice.is_gpu_device())
      throw UsageError(fmt::format("--gdr applies to GPU device memory (--mem cuda:N or rocm:N); --mem is {}", text));
    constexpr std::array<const char*, 3> modes{"auto", "dmabuf", "peermem"};
    const auto gdr = vm["gdr"].as<std::string>();
    if (std::find(modes.begin(), modes.end(), gdr) == modes.end())
      throw UsageError(fmt::format("--gdr {} is unknown: expected dmabuf, peermem or auto", gdr));
    choice.gdr = gdr == "dmabuf" ? GdrMode::dmabuf : gdr == "peermem" ? GdrMode::peermem : GdrMode::automatic;
  }
  cl.side.memory = choice;
}

void apply_relaxed_ordering(const std::string& text, const po::variables_map&, CommandLine& cl) {
  cl.side.qp.relaxed_ordering = choice_value("--relaxed-ordering", text, std::array{"on", "off"}) == 0;
}

/// --cpu must name a CPU this process may use.
void apply_cpu(const std::string& text, const po::variables_map&, CommandLine& cl) {
  const auto allowed = allowed_cpus();
  std::size_t used = 0;
  long long cpu = -1;
  try {
    cpu = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const bool fits = used == text.size() && cpu >= 0 && cpu <= std::numeric_limits<int>::max();
  if (!fits || !std::binary_search(allowed.begin(), allowed.end(), static_cast<int>(cpu)))
    throw UsageError(fmt::format("--cpu {} is not a CPU this process may run on; valid CPUs: {}", text,
                                 format_cpu_list(allowed)));
  cl.placement.cpu = static_cast<int>(cpu);
}

void apply_numa(const std::string& text, const po::variables_map&, CommandLine& cl) {
  cl.placement.follow_device_numa = choice_value("--numa", text, std::array{"auto", "off"}) == 0;
}

// clang-format off
const std::array kSideOptions{
    SideOption{"-m/--mtu", SideGroup::device,
        "path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU)", nullptr, apply_mtu},
    SideOption{"--sl", SideGroup::device, "service level, 0-15", nullptr, apply_service_level},
    SideOption{"--tclass", SideGroup::device, "traffic class (RoCE: DSCP and ECN bits), 0-255", nullptr,
        apply_traffic_class},
    SideOption{"--pkey-index", SideGroup::device, "index into the port's P_Key table (default 0)", nullptr,
        apply_pkey_index},
    SideOption{"-M/--mgid", SideGroup::device,
        "with -g/--mcg, the multicast group: an IPv4 group (239.1.1.1; RoCE joins only these), an MGID "
        "(ff12:401b::1) or perftest's 16 byte values. Server: the group it joins (default 239.255.H.L, "
        "H.L the control port); client: the group it expects the server's to be", nullptr,
        apply_multicast_group,
        {applies_bit(Operation::send), 0, "send tests", " sends no messages a group could receive"}},
    SideOption{"-I/--inline-size", SideGroup::device,
        "max inline bytes (default as perftest's: 0 for bandwidth tests, reads, atomics and GPU memory; "
        "220 for write latency, 236 for send latency (188 on UD), less on devices known to take less)",
        nullptr, apply_inline_size},
    SideOption{"--mem", SideGroup::memory,
        "buffer memory on this side: host, hugepage, cuda:N (NVIDIA GPU N), cuda-host:N (pinned by CUDA) or "
        "rocm:N (AMD GPU N, through HIP)", "host",
        apply_memory},
    SideOption{"--cuda-bus-id", SideGroup::memory,
        "the GPU of --mem cuda/cuda-host by PCI address, BB:DD.F or DDDD:BB:DD.F", nullptr, nullptr},
    SideOption{"--gdr", SideGroup::memory,
        "GPU memory registration (cuda:N, rocm:N): dmabuf, peermem or auto (dma-buf, then peer memory; default)",
        nullptr, nullptr},
    SideOption{"--relaxed-ordering", SideGroup::memory,
        "on: register the data buffers with PCIe relaxed ordering where the device has it (never a "
        "buffer the CPU polls); off: strict ordering, for hosts whose PCIe root mishandles it", "on",
        apply_relaxed_ordering},
    SideOption{"--cpu", SideGroup::placement, "run the benchmark thread on this CPU only", nullptr, apply_cpu},
    SideOption{"--numa", SideGroup::placement,
        "auto: run on the CPUs of the device's NUMA node (when known); off: leave it to the scheduler", "auto",
        apply_numa},
};
// clang-format on

/// Boost's spelling: "inline-size,I" for "-I/--inline-size", "sl" for "--sl".
std::string boost_name(const char* option) {
  const std::string_view o(option);
  const auto slash = o.find('/');
  if (slash == std::string_view::npos) return std::string(o.substr(2));
  return fmt::format("{},{}", o.substr(slash + 3), o.substr(1, slash - 1));
}

}  // namespace

std::string option_key(const char* option) {
  const std::string name = boost_name(option);
  return name.substr(0, name.find(','));
}

void declare_side_options(po::options_description& options, po::options_description& hidden, SideGroup group,
                          const TestSpec& defaults) {
  for (const SideOption& row : kSideOptions) {
    if (row.group != group) continue;
    auto* value = po::value<std::string>();
    if (row.default_value) value->default_value(row.default_value);
    const std::string name = boost_name(row.option);
    (row.applies.covers(defaults.operation, defaults.measurement) ? options : hidden)
        .add_options()(name.c_str(), value, row.help);
  }
}

void apply_side_options(const po::variables_map& vm, const std::string& binary, CommandLine& cl) {
  for (const SideOption& row : kSideOptions) {
    const std::string key = option_key(row.option);
    const bool given = vm.count(key) && !vm[key].defaulted();
    if (given && !row.applies.covers(cl.spec.operation, cl.spec.measurement))
      throw UsageError(fmt::format("{} applies to {}; {}{}", row.option, row.applies.tests, binary,
                                   row.applies.otherwise));
    if (row.apply && vm.count(key)) row.apply(vm[key].as<std::string>(), vm, cl);
  }
}

}  // namespace rdmabench::cli
