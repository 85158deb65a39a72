#pragma once
// The frame every binary's main() runs in, so that all of them answer the
// same way: --help and --version on stdout (exit 0), a mistake in the
// options as "NAME: error: WHAT" and "Try 'NAME --help'." (exit 2), a failed
// run as "NAME: error: WHAT" (exit 1).

#include <exception>
#include <iostream>
#include <string_view>

#include "cli/options.hpp"
#include "rdmabench/version.hpp"

namespace rdmabench::cli {

/// `parse()` returns the command line (with show_help, show_version and
/// help_text), throwing UsageError on a mistake; `run(command_line)` returns
/// the exit status of a run, throwing on failure.
template <typename Parse, typename Run>
int main_frame(std::string_view name, Parse&& parse, Run&& run) {
  decltype(parse()) cl;
  try {
    cl = parse();
  } catch (const UsageError& e) {
    std::cerr << name << ": error: " << e.what() << "\nTry '" << name << " --help'.\n";
    return 2;
  }
  if (cl.show_help) {
    std::cout << cl.help_text;
    return 0;
  }
  if (cl.show_version) {
    print_version(name);
    return 0;
  }
  try {
    return run(cl);
  } catch (const std::exception& e) {
    std::cerr << name << ": error: " << e.what() << std::endl;
    return 1;
  }
}

}  // namespace rdmabench::cli
