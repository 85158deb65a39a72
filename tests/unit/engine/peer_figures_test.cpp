// Figures the server reports with -b are peer input: one per-QP figure for
// each agreed QP, or the run ends naming the mismatch.

#include "engine/peer_figures.hpp"

#include <memory>
#include <utility>

#include "catch2_compat.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/control/wire.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using rdmabench::test::MessageContains;

TEST_CASE("with -b, a server's bandwidth report must hold one per-QP figure for each agreed QP",
          "[engine]") {
  auto [ours, theirs] = rdmabench::make_control_pair();
  rdmabench::TestSpec spec;
  spec.queue_pairs = 4;
  rdmabench::Session client(rdmabench::Role::client,
                            std::make_unique<rdmabench::ControlChannel>(std::move(ours)), spec,
                            rdmabench::Milliseconds(2000), nullptr);
  rdmabench::BandwidthFigures figures{0.03, 12000.0, 10000.0, 0.15, 4600, {2500.0, 2500.0}};
  theirs.send(rdmabench::wire::BandwidthReport{figures});
  rdmabench::SizeResult result;
  REQUIRE_THROWS_MATCHES(
      rdmabench::detail::exchange_bandwidth_figures(client, result), rdmabench::Error,
      MessageContains(
          "the server's bandwidth report has 2 per-QP figures; the run agreed on -q 4"));
  figures.per_qp_mb_per_s = {2500.0, 2500.0, 2500.0, 2500.0};
  theirs.send(rdmabench::wire::BandwidthReport{figures});
  REQUIRE_NOTHROW(rdmabench::detail::exchange_bandwidth_figures(client, result));
  CHECK(result.server_bandwidth->per_qp_mb_per_s.size() == 4);
}
