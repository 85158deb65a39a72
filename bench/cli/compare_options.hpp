#pragma once
// rdma_compare's command line: the two sides, the thresholds, the
// bootstrap and the output. MPI- and device-free, so the unit tests reach it.

#include <string>
#include <vector>

#include "cli/output_file.hpp"
#include "rdmabench/compare/comparison.hpp"
#include "rdmabench/compare/measurement.hpp"

namespace rdmabench::cli {

enum class CompareFormat { markdown, json, html };

struct CompareCommandLine {
  std::vector<std::string> old_paths, new_paths;  ///< each side's files and folders
  compare::CompareOptions options;
  compare::ReadOptions read;
  CompareFormat format = CompareFormat::markdown;
  std::string out = "-";  ///< "-": stdout
  ExistingOutput existing_output = ExistingOutput::refuse;
  bool show_help = false;
  bool show_version = false;
  std::string help_text;
};

/// Parses the arguments after the program name; throws UsageError naming
/// the option that is wrong and what would be right.
CompareCommandLine parse_compare_command_line(const std::vector<std::string>& args);

}  // namespace rdmabench::cli
