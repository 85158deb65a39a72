#pragma once
// The two sides of a tcp_baseline session. Each returns its exit status and
// throws Error on failure.

#include "tcp_baseline/tcp_options.hpp"

namespace rdmabench::tcp {

/// No address: listen, serve one client's session as its header asks, then
/// exit.
int serve(const Options& o);

/// With an address: run the test of the options against that server and
/// report it.
int run_client(const Options& o);

}  // namespace rdmabench::tcp
