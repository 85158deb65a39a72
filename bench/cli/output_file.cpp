#include "cli/output_file.hpp"

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::cli {

std::unique_ptr<std::ofstream> open_output(const std::string& path, const char* option) {
  auto file = std::make_unique<std::ofstream>(path);
  if (!*file) throw Error(fmt::format("cannot write {} file '{}'", option, path));
  return file;
}

}  // namespace rdmabench::cli
