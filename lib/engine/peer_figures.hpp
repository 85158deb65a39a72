#pragma once
// With -b, the server's figures reach the client over the control channel:
// figures from the other side, checked as any peer input is.
#include "rdmabench/control/session.hpp"
#include "rdmabench/report/result.hpp"

namespace rdmabench::detail {

/// The server sends its own bandwidth figures; the client keeps them apart
/// from its own (`result.server_bandwidth`), after checking that they hold
/// one figure per agreed QP (none for a single QP). Throws Error otherwise.
void exchange_bandwidth_figures(Session& s, SizeResult& result);

}  // namespace rdmabench::detail
