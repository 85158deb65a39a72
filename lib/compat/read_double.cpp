#include "rdmabench/compat/read_double.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

namespace rdmabench {

std::from_chars_result read_double(const char* first, const char* last, double& value) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  return std::from_chars(first, last, value);
#else
  const auto digits = [&](const char* p) {
    while (p != last && *p >= '0' && *p <= '9') ++p;
    return p;
  };
  const char* p = first;
  if (p != last && *p == '-') ++p;
  // "inf", "infinity" and "nan", in any case, as from_chars reads them.
  for (const std::string_view word : {"infinity", "inf", "nan"}) {
    const auto n = static_cast<std::ptrdiff_t>(word.size());
    if (last - p >= n && std::equal(word.begin(), word.end(), p, [](char w, char c) {
          return w == (c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
        })) {
      value = std::strtod(std::string(first, p + n).c_str(), nullptr);
      return {p + n, std::errc{}};
    }
  }
  const char* const whole = p;
  p = digits(p);
  bool any = p != whole;
  if (p != last && *p == '.') {
    const char* const fraction = p + 1;
    const char* const after = digits(fraction);
    if (any || after != fraction) p = after;
    any = any || after != fraction;
  }
  if (!any) return {first, std::errc::invalid_argument};
  if (p != last && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    if (q != last && (*q == '+' || *q == '-')) ++q;
    const char* const exponent_end = digits(q);
    if (exponent_end != q) p = exponent_end;
  }
  const std::string number(first, p);
  errno = 0;
  value = std::strtod(number.c_str(), nullptr);
  if (errno == ERANGE) return {p, std::errc::result_out_of_range};
  return {p, std::errc{}};
#endif
}

}  // namespace rdmabench
