#pragma once
// A format string known only at run time (the parameter table's texts).
// fmt 8 and later check format strings at compile time and need
// fmt::runtime() to skip that; fmt 7 (Debian 11) has no fmt::runtime and
// takes any string as it is.

#include <fmt/format.h>

#include <string_view>

namespace rdmabench {

#if FMT_VERSION >= 80000
inline auto runtime_format(std::string_view form) { return fmt::runtime(form); }
#else
inline std::string_view runtime_format(std::string_view form) { return form; }
#endif

}  // namespace rdmabench
