#include "sweep/sweep_results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep_cli {

using nlohmann::json;

namespace {

std::ofstream open_for_writing(const std::filesystem::path& file) {
  std::ofstream out(file);
  if (!out) throw Error(fmt::format("cannot write '{}'", file.string()));
  return out;
}

std::string cell_text(const sweep::Cell& cell) {
  switch (cell.state) {
    case sweep::CellState::measured: return fmt::format("{:.2f}", cell.value);
    case sweep::CellState::failed: return "failed";
    case sweep::CellState::not_measured: break;
  }
  return "-";
}

void write_table(std::ofstream& out, std::span<const sweep::Endpoint> endpoints, const sweep::PairMatrix& matrix) {
  out << "| client \\ server |";
  for (const auto& e : endpoints) out << " rank " << e.rank << " |";
  out << "\n|---|";
  for (std::size_t i = 0; i < endpoints.size(); ++i) out << "---:|";
  out << "\n";
  for (std::size_t c = 0; c < endpoints.size(); ++c) {
    out << "| rank " << endpoints[c].rank << " |";
    for (std::size_t s = 0; s < endpoints.size(); ++s) out << " " << cell_text(matrix.at(c, s)) << " |";
    out << "\n";
  }
}

void write_failures(std::ofstream& out, std::span<const sweep::Endpoint> endpoints, const sweep::PairMatrix& matrix) {
  bool any = false;
  for (std::size_t c = 0; c < matrix.size(); ++c)
    for (std::size_t s = 0; s < matrix.size(); ++s) {
      const auto& cell = matrix.at(c, s);
      if (cell.state != sweep::CellState::failed) continue;
      if (!any) out << "\n## Pairs that gave no figure\n\n";
      any = true;
      out << "- " << describe(endpoints[c]) << " to " << describe(endpoints[s]) << ": " << cell.cause << "\n";
    }
}

}  // namespace

std::string encode_records(std::span<const PairRecord> records) {
  json all = json::array();
  for (const auto& r : records) {
    json one{{"round", r.round}, {"client", r.pair.client}, {"server", r.pair.server}, {"error", r.error}};
    if (r.gbits_per_s) one["gbits"] = *r.gbits_per_s;
    all.push_back(std::move(one));
  }
  return all.dump();
}

std::vector<PairRecord> decode_records(const std::string& text) {
  std::vector<PairRecord> records;
  for (const auto& one : json::parse(text)) {
    PairRecord r;
    r.round = one.at("round").get<std::size_t>();
    r.pair = {one.at("client").get<std::size_t>(), one.at("server").get<std::size_t>()};
    r.error = one.at("error").get<std::string>();
    if (one.contains("gbits")) r.gbits_per_s = one.at("gbits").get<double>();
    records.push_back(std::move(r));
  }
  return records;
}

sweep::PairMatrix to_matrix(std::span<const PairRecord> records, std::size_t endpoints) {
  sweep::PairMatrix matrix(endpoints);
  for (const auto& r : records) {
    if (r.gbits_per_s)
      matrix.record(r.pair.client, r.pair.server, *r.gbits_per_s);
    else
      matrix.record_failure(r.pair.client, r.pair.server, r.error);
  }
  return matrix;
}

sweep::Figure write_bandwidth_figure() { return {"write bandwidth", "Gb/s", sweep::Better::higher}; }

void write_results_jsonl(const std::filesystem::path& file, std::span<const sweep::Endpoint> endpoints,
                         std::span<const PairRecord> records) {
  std::vector<PairRecord> ordered(records.begin(), records.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const PairRecord& a, const PairRecord& b) { return a.round < b.round; });
  auto out = open_for_writing(file);
  for (const auto& r : ordered) {
    const auto& c = endpoints[r.pair.client];
    const auto& s = endpoints[r.pair.server];
    json line{{"test", "write_bw"}, {"round", r.round + 1},
              {"client", {{"rank", c.rank}, {"host", c.host}, {"device", c.device}}},
              {"server", {{"rank", s.rank}, {"host", s.host}, {"device", s.device}}}};
    if (r.gbits_per_s)
      line["bw_avg_gbits"] = *r.gbits_per_s;
    else
      line["error"] = r.error;
    out << line.dump() << "\n";
  }
}

void write_report_md(const std::filesystem::path& file, std::span<const sweep::Endpoint> endpoints,
                     const sweep::PairMatrix& matrix, const sweep::Verdict& verdict) {
  auto out = open_for_writing(file);
  out << "# rdma_sweep: pairwise write_bw\n\n";
  out << "Bandwidth average in Gb/s (10^9 bit/s); row: client (writer), column: server.\n\n";
  for (const auto& e : endpoints) out << "- " << describe(e) << "\n";
  out << "\n";
  write_table(out, endpoints, matrix);
  write_failures(out, endpoints, matrix);
  out << "\n## Verdict\n\n";
  out << verdict.pairs_judged << " pairs judged, " << verdict.pairs_failing << " failing";
  if (verdict.median) out << fmt::format("; median {:.2f} Gb/s", *verdict.median);
  out << ".\n";
  for (const auto& suspect : verdict.suspects) out << "\n- " << suspect.sentence << "\n";
  if (verdict.suspects.empty()) out << "\nNo suspect: no pair stands out.\n";
}

}  // namespace rdmabench::sweep_cli
