// tcp_baseline: what the same link does without RDMA. TCP streaming bandwidth
// with 1..N connections (per-interval figures, for stability) and a ping-pong
// latency test, reported with the library's JSON schema so that a script
// reads TCP and RDMA results the same way. Server/client like our RDMA
// binaries: no address = server (one session, then exit). The parts live in
// tcp_baseline/.
#include <string>
#include <vector>

#include "cli/main_frame.hpp"
#include "tcp_baseline/tcp_options.hpp"
#include "tcp_baseline/tcp_roles.hpp"

int main(int argc, char** argv) {
  using namespace rdmabench;
  return cli::main_frame(
      "tcp_baseline", [&] { return tcp::parse_tcp_command_line(std::vector<std::string>(argv + 1, argv + argc)); },
      [](const tcp::Options& o) { return o.is_client() ? tcp::run_client(o) : tcp::serve(o); });
}
