#include "sweep/rank_setup.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/benchmark_kinds.hpp"
#include "rdmabench/verbs/device.hpp"
#include "sweep/endpoint_context.hpp"

namespace rdmabench::sweep_cli {

namespace {

/// Each test's options as its binary would parse them on this rank.
std::map<std::string, cli::CommandLine> parse_tests(const SweepOptions& options, const sweep::EndpointContext& me) {
  auto args = resolve_auto_gpu(pair_arguments(options, me.endpoint.device), me.endpoint.device);
  if (!me.gid.empty()) {
    // An address given with --addresses names this rank's GID.
    const Context context = open_device(me.endpoint.device);
    const auto index = gid_index_of_address(query_port(context.get(), 1), me.address);
    if (index) args.insert(args.end(), {"-x", std::to_string(*index)});
  }
  std::map<std::string, cli::CommandLine> tests;
  for (const auto& test : options.tests) {
    const auto& kind = cli::benchmark_kind(test);
    // parse_sweep_options() has checked these options already; here they
    // get this rank's device and GID.
    tests.emplace(test, cli::parse_command_line(kind, args));
  }
  return tests;
}

}  // namespace

RankSetup prepare_rank(int rank, int local_rank, const std::string& host, const SweepOptions& options) {
  RankSetup setup;
  setup.me.endpoint.rank = rank;
  setup.me.endpoint.host = host;
  try {
    setup.me.endpoint.device = device_for_local_rank(options.device, local_rank, host_rdma_devices());
    setup.me.endpoint.rail = rail_for_local_rank(options.device, local_rank);
    const auto& addresses = options.device.addresses;
    std::string address;
    if (!addresses.empty()) {
      if (static_cast<std::size_t>(local_rank) >= addresses.size())
        throw Error(fmt::format("--addresses names {} addresses, but this is local rank {} of its host",
                                addresses.size(), local_rank));
      address = addresses[static_cast<std::size_t>(local_rank)];
    }
    setup.me = describe_endpoint(setup.me.endpoint, address);
    setup.tests = parse_tests(options, setup.me);
    // Every test of a rank uses the same --mem.
    const MemoryChoice& memory = setup.tests.begin()->second.side.memory;
    setup.me.memory = memory.name();
    setup.me.gpu_relationship = gpu_relation_of(memory, setup.me.endpoint.device);
  } catch (const std::exception& e) {
    setup.error = fmt::format("rank {} ({}): {}", rank, host, e.what());
  }
  return setup;
}

std::string encode_setup(const RankSetup& setup) {
  return nlohmann::json{{"context", sweep::to_json_text(setup.me)}, {"error", setup.error}}.dump();
}

RankSetup decode_setup(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    RankSetup setup;
    setup.me = sweep::context_from_json_text(j.at("context").get<std::string>());
    setup.error = j.at("error").get<std::string>();
    return setup;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("a rank's description does not parse: {}", e.what()));
  }
}

}  // namespace rdmabench::sweep_cli
