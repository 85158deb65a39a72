#pragma once
// Where a sweep writes: a folder that holds one sweep only.

#include <filesystem>

namespace rdmabench::sweep_cli {

/// Refuses (an Error naming --resume and a fresh folder) a sweep started
/// with --out in a folder whose results.jsonl already holds records:
/// appending would mix two sweeps in one report. With `resume` the folder
/// is continued, which is what --resume is for.
void refuse_mixing_sweeps(const std::filesystem::path& out_dir, bool resume);

}  // namespace rdmabench::sweep_cli

#include <vector>

#include "rdmabench/sweep/record.hpp"

namespace rdmabench::sweep_cli {

/// The records of an earlier sweep's folder (--baseline DIR): its
/// results.jsonl, a torn last line dropped as --resume drops it. Throws
/// rdmabench::Error naming the folder when it holds no readable sweep.
std::vector<sweep::SweepRecord> read_baseline_records(const std::filesystem::path& dir);

}  // namespace rdmabench::sweep_cli
