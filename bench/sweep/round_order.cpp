#include "sweep/round_order.hpp"

#include <fmt/format.h>

#include <map>

#include <nlohmann/json.hpp>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep_cli {

using nlohmann::json;

std::string encode_order(const RoundOrder& order) {
  json pairs = json::array();
  for (const auto& p : order.pairs) pairs.push_back({p.client, p.server});
  return json{{"kind", "round"},
              {"epoch", order.epoch},
              {"test", order.test},
              {"pass", order.pass == sweep::SweepPass::retest ? "retest" : "sweep"},
              {"round", order.round},
              {"rounds", order.rounds},
              {"pairs", pairs}}
      .dump();
}

RoundOrder decode_order(const std::string& text, std::size_t ranks) {
  try {
    const json j = json::parse(text);
    RoundOrder order;
    order.epoch = j.at("epoch").get<std::uint32_t>();
    order.test = j.at("test").get<std::string>();
    order.pass = j.at("pass").get<std::string>() == "retest" ? sweep::SweepPass::retest : sweep::SweepPass::sweep;
    order.round = j.at("round").get<std::size_t>();
    order.rounds = j.at("rounds").get<std::size_t>();
    for (const auto& p : j.at("pairs")) {
      sweep::DirectedPair pair{p.at(0).get<std::size_t>(), p.at(1).get<std::size_t>()};
      require(pair.client < ranks && pair.server < ranks && pair.client != pair.server,
              fmt::format("pair {} -> {} is not two of the {} ranks", pair.client, pair.server, ranks));
      order.pairs.push_back(pair);
    }
    return order;
  } catch (const json::exception& e) {
    throw Error(fmt::format("rank 0 sent an order that does not parse: {}", e.what()));
  }
}

std::set<PairKey> measured_pairs(std::span<const sweep::SweepRecord> records) {
  std::set<PairKey> keys;
  for (const auto& r : records)
    if (r.pass == sweep::SweepPass::sweep && r.measured())
      keys.emplace(r.test, static_cast<std::size_t>(r.client.endpoint.rank),
                   static_cast<std::size_t>(r.server.endpoint.rank));
  return keys;
}

std::vector<RoundOrder> plan_sweep(std::span<const std::string> tests,
                                   const sweep::Schedule& schedule, const std::set<PairKey>& skip,
                                   std::uint32_t first_epoch) {
  std::vector<RoundOrder> orders;
  for (const auto& test : tests) {
    std::vector<RoundOrder> rounds;
    for (const auto& round : schedule) {
      RoundOrder order;
      order.test = test;
      for (const auto& pair : round)
        if (!skip.count({test, pair.client, pair.server})) order.pairs.push_back(pair);
      if (!order.pairs.empty()) rounds.push_back(std::move(order));
    }
    for (std::size_t i = 0; i < rounds.size(); ++i) {
      rounds[i].round = i;
      rounds[i].rounds = rounds.size();
      rounds[i].epoch = first_epoch + static_cast<std::uint32_t>(orders.size());
      orders.push_back(std::move(rounds[i]));
    }
  }
  return orders;
}

std::optional<std::string> crowded_host(std::span<const sweep::EndpointContext> everyone) {
  std::map<std::string, std::pair<int, int>> hosts;  // host -> (ranks, CPUs)
  for (const auto& e : everyone) {
    auto& [ranks, cpus] = hosts[e.endpoint.host];
    ++ranks;
    if (e.host_cpus) cpus = *e.host_cpus;
  }
  for (const auto& [host, counts] : hosts)
    if (counts.second > 0 && counts.first > counts.second)
      return fmt::format("{} has {} ranks and {} CPUs", host, counts.first, counts.second);
  return std::nullopt;
}

std::vector<RoundOrder> one_pair_per_round(std::vector<RoundOrder> orders, const std::set<std::string>& alone,
                                           std::uint32_t first_epoch) {
  std::vector<RoundOrder> out;
  // Rounds of one test and pass are consecutive in a plan: count each run
  // of them as it is emitted, then number it.
  std::size_t run_start = 0;
  auto number_run = [&] {
    for (std::size_t i = run_start; i < out.size(); ++i) {
      out[i].round = i - run_start;
      out[i].rounds = out.size() - run_start;
    }
    run_start = out.size();
  };
  for (RoundOrder& order : orders) {
    if (out.size() > run_start && (order.test != out.back().test || order.pass != out.back().pass)) number_run();
    if (!alone.count(order.test) || order.pairs.size() <= 1) {
      out.push_back(std::move(order));
      continue;
    }
    for (const auto& pair : order.pairs) {
      RoundOrder single = order;
      single.pairs = {pair};
      out.push_back(std::move(single));
    }
  }
  number_run();
  for (std::size_t i = 0; i < out.size(); ++i) out[i].epoch = first_epoch + static_cast<std::uint32_t>(i);
  return out;
}

std::vector<RoundOrder> plan_retest(const std::string& test, std::span<const sweep::DirectedPair> pairs,
                                    std::uint32_t first_epoch) {
  const auto rounds = sweep::pack_into_rounds(pairs);
  std::vector<RoundOrder> orders;
  for (std::size_t i = 0; i < rounds.size(); ++i)
    orders.push_back({first_epoch + static_cast<std::uint32_t>(i), test, sweep::SweepPass::retest, i,
                      rounds.size(), rounds[i]});
  return orders;
}

std::uint16_t server_port(const RoundOrder& order, std::size_t index, std::uint16_t base_port, std::size_t ranks) {
  const auto server = order.pairs.at(index).server;
  std::size_t earlier = 0;
  for (std::size_t i = 0; i < index; ++i)
    if (order.pairs[i].server == server) ++earlier;
  const std::size_t port = base_port + 2 * (server + earlier * ranks);
  if (port + 1 > 65535)
    throw Error(fmt::format("rank {}'s pair {} of this round needs port {}, beyond 65535", server, earlier + 1, port + 1),
                "lower --port, or use a pattern with fewer pairs per rank at once");
  return static_cast<std::uint16_t>(port);
}

}  // namespace rdmabench::sweep_cli
