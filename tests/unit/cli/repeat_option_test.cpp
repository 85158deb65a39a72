// --repeat N: the size list N times over one connection (one run_id), each
// record marked; bounded, and refused beside a soak, which repeats already.

#include "catch2_compat.hpp"
#include "cli/options.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "test_helpers.hpp"

using rdmabench::Measurement;
using rdmabench::Operation;
using rdmabench::cli::BenchmarkKind;
using rdmabench::cli::parse_command_line;
using rdmabench::cli::UsageError;
using rdmabench::test::MessageContains;

namespace {

const BenchmarkKind kRepeatWriteBw{"rdma_write_bw", Operation::write, Measurement::bandwidth, 65536, 5000, 128};
const BenchmarkKind kRepeatReadLat{"rdma_read_lat", Operation::read, Measurement::latency, 2, 1000, 1};

}  // namespace

TEST_CASE("options: --repeat N runs the sizes N times, 1 to 1000, not with --run-infinitely",
          "[options][repeat]") {
  CHECK(parse_command_line(kRepeatWriteBw, {}).spec.repeats == 1);
  CHECK(parse_command_line(kRepeatWriteBw, {"--repeat", "3", "-a"}).spec.repeats == 3);
  CHECK(parse_command_line(kRepeatReadLat, {"--repeat", "1000", "host-b"}).spec.repeats == 1000);
  CHECK(parse_command_line(kRepeatWriteBw, {"--help"}).help_text.find("--repeat") != std::string::npos);
  REQUIRE_THROWS_MATCHES(parse_command_line(kRepeatWriteBw, {"--repeat", "0"}), UsageError,
                         MessageContains("--repeat 0 is out of range: expected 1 to 1000 repeats"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kRepeatWriteBw, {"--repeat", "1001"}), UsageError,
                         MessageContains("--repeat 1001 is out of range"));
  REQUIRE_THROWS_MATCHES(parse_command_line(kRepeatWriteBw, {"--repeat", "2", "--run-infinitely"}), UsageError,
                         MessageContains("--repeat 2 and --run-infinitely conflict"));
  // A soak with the default of one pass is no conflict.
  CHECK(parse_command_line(kRepeatWriteBw, {"--repeat", "1", "--run-infinitely"}).spec.run_infinitely);
}
