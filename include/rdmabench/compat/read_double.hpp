#pragma once
// std::from_chars for a double. GCC 10's libstdc++ (Debian 11) has only
// the integer overloads of from_chars; there the same plain form
// ([-]digits[.digits][e[+-]digits], inf, nan; no '+', spaces or hex) is
// cut out by hand and read with strtod (the binaries keep the "C" locale).

#include <charconv>

namespace rdmabench {

std::from_chars_result read_double(const char* first, const char* last, double& value);

}  // namespace rdmabench
