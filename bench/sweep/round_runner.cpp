#include "sweep/round_runner.hpp"

#include <fmt/format.h>

#include <future>
#include <iostream>
#include <mutex>
#include <set>

#include "sweep/mpi_peer.hpp"
#include "sweep/pair_run.hpp"

namespace rdmabench::sweep_cli {

namespace {

std::mutex notice_lock;
/// What this rank has told already: the same notice for every pair of a
/// sweep ("siw0 is iWARP: connecting with rdma_cm") is said once.
std::set<std::string> notices_given;

PairJob job_for(const SweepRank& rank, const RoundOrder& order, std::size_t index) {
  const auto pair = order.pairs[index];
  const bool is_client = pair.client == static_cast<std::size_t>(rank.world.rank);
  const auto& other = rank.everyone.at(is_client ? pair.server : pair.client);
  PairJob job;
  job.test = order.test;
  job.setup = &rank.setup.tests.at(order.test);
  job.client = rank.everyone.at(pair.client);
  job.server = rank.everyone.at(pair.server);
  job.cm_port = server_port(order, index, rank.options.base_port, rank.everyone.size());
  const auto tags = pair_tags(static_cast<int>(pair.client), static_cast<int>(pair.server),
                              rank.world.size, rank.world.tag_upper_bound);
  const std::string name = sweep::describe(other.endpoint);
  const int peer_rank = other.endpoint.rank;
  const MPI_Comm comm = rank.world.pairs;
  const std::uint32_t epoch = order.epoch;
  job.open_peer = [=]() -> std::unique_ptr<Bootstrap> {
    return std::make_unique<MpiPeer>(comm, peer_rank, tags, is_client, epoch, name);
  };
  const std::string prefix = fmt::format("rdma_sweep rank {}: {} {} -> {}: ", rank.world.rank, order.test,
                                         pair.client, pair.server);
  job.notice = [prefix](const std::string& message) {
    const std::lock_guard lock(notice_lock);
    if (notices_given.insert(message).second) std::cerr << prefix << message << std::endl;
  };
  return job;
}

}  // namespace

MyPairs run_my_pairs(const SweepRank& rank, const RoundOrder& order, const std::function<void()>& tend) {
  const auto me = static_cast<std::size_t>(rank.world.rank);
  std::vector<std::future<sweep::SweepRecord>> clients;
  std::vector<std::future<ServerOutcome>> servers;
  std::vector<int> served_clients;  ///< by position in `servers`
  for (std::size_t i = 0; i < order.pairs.size(); ++i) {
    const auto& pair = order.pairs[i];
    if (pair.client != me && pair.server != me) continue;
    PairJob job = job_for(rank, order, i);
    if (pair.client == me)
      clients.push_back(std::async(std::launch::async, [job, &rank] { return run_client_side(job, rank.clock); }));
    else {
      servers.push_back(std::async(std::launch::async, [job, &rank] { return run_server_side(job, rank.clock); }));
      served_clients.push_back(job.client.endpoint.rank);
    }
  }
  auto all_ready = [&] {
    for (auto& f : clients)
      if (f.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) return false;
    for (auto& f : servers)
      if (f.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) return false;
    return true;
  };
  while (!all_ready()) {
    tend();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  MyPairs mine;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    auto outcome = servers[i].get();
    if (!outcome.error.empty())
      std::cerr << fmt::format("rdma_sweep rank {}: {}: server side: {}\n", rank.world.rank, order.test, outcome.error);
    if (outcome.counters) mine.served.push_back({served_clients[i], rank.world.rank, std::move(*outcome.counters)});
  }
  for (auto& f : clients) {
    auto record = f.get();
    record.pattern = std::string(sweep::pattern_name(rank.options.schedule.pattern));
    record.pass = order.pass;
    record.round = order.round;
    mine.records.push_back(std::move(record));
  }
  return mine;
}

}  // namespace rdmabench::sweep_cli
