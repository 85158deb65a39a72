#pragma once
// Text made safe for HTML and SVG: what the sweep's report and
// rdma_compare's page put into their markup.

#include <string>
#include <string_view>

namespace rdmabench::report {

/// `text` with &, <, >, " and ' written as entities, for element text and
/// quoted attribute values alike.
std::string html_escape(std::string_view text);

}  // namespace rdmabench::report
