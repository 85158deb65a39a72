#include "cli/output_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include "cli/options.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::cli {

void declare_existing_output_options(boost::program_options::options_description& options, bool& force,
                                     bool& append) {
  options.add_options()
      ("force", boost::program_options::bool_switch(&force),
       "overwrite output files (--json, --csv, --dump-samples) that already hold something")
      ("append", boost::program_options::bool_switch(&append),
       "add to output files that already hold something (a CSV keeps its one header)");
}

ExistingOutput existing_output(bool force, bool append) {
  if (force && append) throw UsageError("--force and --append conflict: overwrite the output files, or add to them");
  return force ? ExistingOutput::overwrite : append ? ExistingOutput::append : ExistingOutput::refuse;
}

OutputFile open_output(const std::string& path, const char* option, ExistingOutput existing) {
  struct stat st {};
  const bool holds_something = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  if (holds_something && existing == ExistingOutput::refuse)
    throw UsageError(fmt::format("{} {}: the file exists and holds {} bytes; give --force to overwrite it, "
                                 "--append to add to it, or another name",
                                 option, path, st.st_size));
  OutputFile out;
  out.appended = holds_something && existing == ExistingOutput::append;
  out.stream = std::make_unique<std::ofstream>(path, out.appended ? std::ios::app : std::ios::trunc);
  if (!*out.stream) throw Error(fmt::format("cannot write {} file '{}'", option, path));
  return out;
}

}  // namespace rdmabench::cli
