#include "sweep/out_folder.hpp"

#include <fmt/format.h>

#include <system_error>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep_cli {

void refuse_mixing_sweeps(const std::filesystem::path& out_dir, bool resume) {
  if (resume) return;
  const auto results = out_dir / "results.jsonl";
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(results, ec);
  if (ec || bytes == 0) return;  // no earlier sweep (or an empty file) to mix with
  throw Error(fmt::format("--out {} already holds a sweep ({}, {} bytes): appending would mix two sweeps "
                          "in one report",
                          out_dir.string(), results.string(), bytes),
              fmt::format("give --resume {} to continue that sweep, or --out with a fresh folder", out_dir.string()));
}

}  // namespace rdmabench::sweep_cli

#include <fstream>

namespace rdmabench::sweep_cli {

std::vector<sweep::SweepRecord> read_baseline_records(const std::filesystem::path& dir) {
  const auto results = dir / "results.jsonl";
  std::ifstream in(results);
  require(static_cast<bool>(in), fmt::format("--baseline {}: cannot read {}", dir.string(), results.string()),
          "give the --out folder of an earlier rdma_sweep of the same fabric");
  std::vector<sweep::SweepRecord> records;
  std::size_t torn = 0;  // a sweep killed mid-append: its last line is dropped
  try {
    records = sweep::read_records(in, &torn);
  } catch (const Error& e) {
    throw Error(fmt::format("--baseline {}: {}", dir.string(), e.what()));
  }
  require(!records.empty(), fmt::format("--baseline {}: {} holds no record", dir.string(), results.string()),
          "give the --out folder of an earlier rdma_sweep that measured pairs");
  return records;
}

}  // namespace rdmabench::sweep_cli
