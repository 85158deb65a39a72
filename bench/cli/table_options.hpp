#pragma once
// Options declared and parsed from the table of test parameters
// (rdmabench/control/test_parameters.hpp): each row with an option group
// becomes one Boost option, and its value is range-checked by the row's
// bounds, the same bounds a server applies to what it adopts.

#include <boost/program_options.hpp>

#include "rdmabench/control/test_parameters.hpp"

namespace rdmabench::cli {

/// Adds the rows of `group` to `options`; a row's "{}" in its help shows the
/// value in `defaults` (the binary's default).
void declare_table_options(boost::program_options::options_description& options, OptionGroup group,
                           const TestSpec& defaults);

/// Sets every table option the user gave; a value outside its row's bounds
/// or an unknown name is a UsageError naming the option and what is allowed.
void apply_table_options(const boost::program_options::variables_map& vm, TestSpec& spec);

/// True when the user gave the option of the row keyed `key` ("iterations").
bool given(const boost::program_options::variables_map& vm, std::string_view key);

}  // namespace rdmabench::cli
