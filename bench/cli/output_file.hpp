#pragma once
// The files a binary's output options name (--json, --csv, --dump-samples),
// opened before any connection so that a bad path fails at once, and never
// overwritten without being asked: a file that holds something is refused
// unless --force (start it afresh) or --append (add to it) says what to do.

#include <boost/program_options.hpp>

#include <fstream>
#include <memory>
#include <string>

namespace rdmabench::cli {

/// What to do with an output file that already holds something.
enum class ExistingOutput { refuse, overwrite, append };

struct OutputFile {
  std::unique_ptr<std::ofstream> stream;
  bool appended = false;  ///< it held something, and this run adds to it (a CSV then needs no header)
};

/// Declares --force and --append (for the output files) into `options`.
void declare_existing_output_options(boost::program_options::options_description& options, bool& force,
                                     bool& append);
/// What --force and --append ask for; a UsageError when both are given.
ExistingOutput existing_output(bool force, bool append);

/// Opens `path` for writing. A regular file that is not empty is refused
/// (a UsageError naming `option`, the path, --force and --append) unless
/// `existing` says otherwise; an empty one, or a device such as /dev/null,
/// is taken as it is. Throws Error naming `option` and the path when it
/// cannot be written.
OutputFile open_output(const std::string& path, const char* option, ExistingOutput existing);

}  // namespace rdmabench::cli
