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
