#include "sweep/round_report.hpp"

#include <nlohmann/json.hpp>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep_cli {

std::string encode_done(std::uint32_t epoch, const MyPairs& mine) {
  nlohmann::json lines = nlohmann::json::array(), served = nlohmann::json::array();
  for (const auto& r : mine.records) lines.push_back(sweep::to_json_line(r));
  for (const auto& s : mine.served)
    served.push_back({{"client", s.client_rank}, {"server", s.server_rank}, {"counters", sweep::to_json_text(s.counters)}});
  return nlohmann::json{{"kind", "done"}, {"epoch", epoch}, {"records", lines}, {"served", served}}.dump();
}

MyPairs decode_done(const std::string& text, int from, std::uint32_t& epoch) {
  const auto j = nlohmann::json::parse(text);
  MyPairs mine;
  for (const auto& line : j.at("records")) {
    auto record = sweep::from_json_line(line.get<std::string>());
    // A rank reports only the pairs it was the client of, and the counters
    // of those it served.
    if (record.client.endpoint.rank != from) throw Error("a record of another rank's pair");
    mine.records.push_back(std::move(record));
  }
  for (const auto& s : j.value("served", nlohmann::json::array())) {
    ServerCounters served{s.at("client").get<int>(), s.at("server").get<int>(),
                          sweep::counter_deltas_from_json_text(s.at("counters").get<std::string>())};
    if (served.server_rank != from) throw Error("the counters of a pair another rank served");
    mine.served.push_back(std::move(served));
  }
  epoch = j.at("epoch").get<std::uint32_t>();
  return mine;
}

void join_server_counters(std::vector<sweep::SweepRecord>& records, const std::vector<ServerCounters>& served) {
  for (const auto& s : served)
    for (auto& r : records)
      if (r.client.endpoint.rank == s.client_rank && r.server.endpoint.rank == s.server_rank) r.counters.server = s.counters;
}

}  // namespace rdmabench::sweep_cli
