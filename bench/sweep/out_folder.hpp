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
