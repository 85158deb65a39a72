#pragma once
// What a client run measured: the library's result and context (reported
// with the same JSON schema, CSV and samples as the RDMA figures), and the
// figures only TCP has.

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/report/result.hpp"
#include "tcp_baseline/tcp_options.hpp"

namespace rdmabench::tcp {

struct Measurement {
  SizeResult result;
  RunContext context;
  nlohmann::json server_cpu;  ///< the server's summary, as it sent it
  /// Stream tests: the connections and each interval's figures.
  std::uint32_t streams = 1;
  std::optional<nlohmann::json> intervals;
};

/// The report context of a TCP test named `test` ("tcp_stream").
RunContext tcp_context(const Options& o, const char* test);

/// The test on the session's data connections, then the server's summary
/// from `control`; throws Error when the server counted other bytes.
Measurement run_pingpong(const Options& o, ControlChannel& control, std::vector<ControlChannel>& data);
Measurement run_stream(const Options& o, ControlChannel& control, std::vector<ControlChannel>& data);

}  // namespace rdmabench::tcp
