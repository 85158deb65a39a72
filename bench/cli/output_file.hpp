#pragma once
// The files a binary's output options name (--json, --csv, --dump-samples),
// opened before any connection so that a bad path fails at once.

#include <fstream>
#include <memory>
#include <string>

namespace rdmabench::cli {

/// Opens `path` for writing, or throws Error naming `option` and the path.
std::unique_ptr<std::ofstream> open_output(const std::string& path, const char* option);

}  // namespace rdmabench::cli
