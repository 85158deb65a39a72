// The client: the session header, the data connections, the test, the
// report.
#include "rdmabench/control/control_channel.hpp"
#include "tcp_baseline/session_protocol.hpp"
#include "tcp_baseline/tcp_measurement.hpp"
#include "tcp_baseline/tcp_report.hpp"
#include "tcp_baseline/tcp_roles.hpp"

namespace rdmabench::tcp {

int run_client(const Options& o) {
  Outputs outputs(o);  // fail on an unwritable file before connecting
  ControlChannel control = connect_control(o.server, o.port, o.timeout);
  const std::uint32_t connections = o.test == Test::pingpong ? 1 : o.streams;
  send_header(control.fd(), {static_cast<std::uint32_t>(o.test), connections, o.size, o.warmup + o.iterations},
              o.timeout);
  std::vector<ControlChannel> data;
  for (std::uint32_t i = 0; i < connections; ++i) data.push_back(connect_control(o.server, o.port, o.timeout));
  const Measurement m = o.test == Test::pingpong ? run_pingpong(o, control, data) : run_stream(o, control, data);
  outputs.report(m);
  return 0;
}

}  // namespace rdmabench::tcp
