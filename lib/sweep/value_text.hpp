#pragma once
// The one way a sweep writes a figure, in its tables and in the suspects'
// sentences alike (defined in report_figures.cpp): 95.2, 40.1, 3.05, and
// three significant digits below 0.1, so a slow lab pair's 0.0106 Gb/s does
// not read as 0.0.

#include <string>

namespace rdmabench::sweep::detail {

std::string value_text(double value);

}  // namespace rdmabench::sweep::detail
