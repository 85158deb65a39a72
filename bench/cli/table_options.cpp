#include "cli/table_options.hpp"

#include <fmt/format.h>

#include <string>

#include "cli/options.hpp"
#include "rdmabench/compat/fmt_runtime.hpp"

namespace po = boost::program_options;

namespace rdmabench::cli {

namespace {

/// Boost's spelling of "-n/--iters" is "iters,n"; of "--warmup", "warmup".
std::string boost_spelling(std::string_view option) {
  const auto slash = option.find('/');
  if (slash == std::string_view::npos) return std::string(option.substr(2));
  return fmt::format("{},{}", option.substr(slash + 3), option.substr(1, slash - 1));
}

/// The name variables_map keys the option by: "iters".
std::string long_name(std::string_view option) {
  const auto spelled = boost_spelling(option);
  return spelled.substr(0, spelled.find(','));
}

/// "RC, UC or UD".
template <typename E>
std::string names_or(const E&) {
  const auto& names = EnumNames<E>::names;
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return text;
}

template <typename T>
void declare_row(po::options_description& options, const TestParameter<T>& row, const TestSpec& defaults) {
  std::string help = row.help;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    if (help.find("{}") != std::string::npos) help = fmt::format(runtime_format(help), defaults.*row.member);
  const std::string name = boost_spelling(row.option);
  if constexpr (std::is_same_v<T, bool>) {
    options.add_options()(name.c_str(), po::bool_switch(), help.c_str());
  } else if constexpr (TestEnum<T>) {
    options.add_options()(name.c_str(), po::value<std::string>(), help.c_str());
  } else if (row.bounds.size) {
    options.add_options()(name.c_str(), po::value<std::string>(), help.c_str());
  } else if constexpr (std::is_integral_v<T>) {
    options.add_options()(name.c_str(), po::value<long long>(), help.c_str());
  }
}

template <typename T>
void apply_row(const po::variables_map& vm, const TestParameter<T>& row, TestSpec& spec) {
  const std::string name = long_name(row.option);
  if (!vm.count(name)) return;
  if constexpr (std::is_same_v<T, bool>) {
    if (vm[name].template as<bool>()) spec.*row.member = true;
  } else if constexpr (TestEnum<T>) {
    const auto& text = vm[name].template as<std::string>();
    const auto& names = EnumNames<T>::names;
    for (std::size_t code = 1; code <= names.size(); ++code)
      if (text == names[code - 1]) return void(spec.*row.member = static_cast<T>(code));
    throw UsageError(fmt::format("{} {} is unknown: expected {}", row.option, text, names_or(T{})));
  } else if constexpr (std::is_integral_v<T>) {
    const Bounds& b = row.bounds;
    if (b.size) {
      const std::uint64_t bytes = parse_size(vm[name].template as<std::string>());
      require_range(row.option, bytes, b.min, b.max, b.unit);
      spec.*row.member = static_cast<T>(bytes);
      return;
    }
    // On the command line 0 is never "the default": leaving the option out is.
    const long long value = vm[name].template as<long long>();
    if (value < static_cast<long long>(b.min) || value > static_cast<long long>(b.max))
      throw UsageError(fmt::format("{} {} is out of range: expected {} to {}{}", row.option, value,
                                   b.min, b.max, b.unit));
    spec.*row.member = static_cast<T>(value);
  }
}

}  // namespace

void declare_table_options(po::options_description& options, po::options_description& hidden,
                           OptionGroup group, const TestSpec& defaults) {
  for_each_test_parameter([&](const auto& row) {
    if (row.group != group || group == OptionGroup::none) return;
    // Declared either way, so that a binary refuses it by name with the reason.
    const bool shown = row.applies.covers(defaults.operation, defaults.measurement);
    declare_row(shown ? options : hidden, row, defaults);
  });
}

void check_table_applicability(const po::variables_map& vm, const std::string& binary,
                               const TestSpec& spec) {
  for_each_test_parameter([&](const auto& row) {
    if (row.group == OptionGroup::none || row.applies.covers(spec.operation, spec.measurement)) return;
    if (given(vm, row.key))
      throw UsageError(fmt::format("{} applies to {}; {}{}", row.option, row.applies.tests, binary,
                                   row.applies.otherwise));
  });
}

void apply_table_options(const po::variables_map& vm, TestSpec& spec) {
  for_each_test_parameter([&](const auto& row) {
    if (row.group != OptionGroup::none) apply_row(vm, row, spec);
  });
}

bool given(const po::variables_map& vm, std::string_view key) {
  bool found = false;
  for_each_test_parameter([&](const auto& row) {
    if (row.key != key || row.group == OptionGroup::none) return;
    const std::string name = long_name(row.option);
    using T = typename std::decay_t<decltype(row)>::Value;
    if constexpr (std::is_same_v<T, bool>)
      found = vm.count(name) && vm[name].template as<bool>();
    else
      found = vm.count(name) > 0;
  });
  return found;
}

}  // namespace rdmabench::cli
