#pragma once
// This side's own options, one row each: what each side gives for itself
// and never sends in the hello (its device's MTU, service level, traffic
// class, P_Key index and inline size; its buffers' memory and PCIe
// ordering; the CPU it runs on). A row declares the option, describes it
// in --help, converts and checks its value and stores it in the
// CommandLine; adding such an option is its row, the code that uses the
// value, a test and the docs.

#include <boost/program_options.hpp>

#include <string>

#include "cli/options.hpp"
#include "rdmabench/control/test_parameters.hpp"

namespace rdmabench::cli {

/// Where a row appears in --help.
enum class SideGroup { device, memory, placement };

struct SideOption {
  const char* option;         ///< as a user spells it: "-I/--inline-size"
  SideGroup group;
  const char* help;
  const char* default_value;  ///< shown and used when the option is left out; nullptr: none
  /// Converts and checks `text` (the option's value) and stores it; null
  /// for an option another row's apply reads (--cuda-bus-id with --mem).
  void (*apply)(const std::string& text, const boost::program_options::variables_map& vm, CommandLine& cl);
  AppliesTo applies{};
};

/// Adds the rows of `group` to `options` (to `hidden` where a row does not
/// apply to the binary `defaults` describes).
void declare_side_options(boost::program_options::options_description& options,
                          boost::program_options::options_description& hidden, SideGroup group,
                          const TestSpec& defaults);

/// Applies every row in table order: given values, and defaults of the rows
/// that have one. A value out of range or unknown is a UsageError naming
/// the option and what is allowed; so is a row given to a binary it does
/// not apply to.
void apply_side_options(const boost::program_options::variables_map& vm, const std::string& binary,
                        CommandLine& cl);

/// The name variables_map keys an option by: "inline-size" for "-I/--inline-size".
std::string option_key(const char* option);

}  // namespace rdmabench::cli
