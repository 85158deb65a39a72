#pragma once
// Options declared and parsed from the table of test parameters
// (rdmabench/control/test_parameters.hpp): each row with an option group
// becomes one Boost option, and its value is range-checked by the row's
// bounds, the same bounds a server applies to what it adopts. A row that
// applies to some tests only is left out of the other binaries' --help
// and refused there by name.

#include <boost/program_options.hpp>

#include "rdmabench/control/test_parameters.hpp"

namespace rdmabench::cli {

/// Adds the rows of `group` to `options`, or to `hidden` (parsed, not in
/// --help) where the row does not apply to the binary `defaults` describes;
/// a row's "{}" in its help shows the value in `defaults`.
void declare_table_options(boost::program_options::options_description& options,
                           boost::program_options::options_description& hidden, OptionGroup group,
                           const TestSpec& defaults);

/// Refuses a table option given to a binary it does not apply to, naming
/// the tests that take it ("-q/--qp applies to bandwidth tests; ...").
void check_table_applicability(const boost::program_options::variables_map& vm, const std::string& binary,
                               const TestSpec& spec);

/// Sets every table option the user gave; a value outside its row's bounds
/// or an unknown name is a UsageError naming the option and what is allowed.
void apply_table_options(const boost::program_options::variables_map& vm, TestSpec& spec);

/// True when the user gave the option of the row keyed `key` ("iterations").
bool given(const boost::program_options::variables_map& vm, std::string_view key);

}  // namespace rdmabench::cli
