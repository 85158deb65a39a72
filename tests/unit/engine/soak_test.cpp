// A soak's two pieces that need no device: the sides' decision after each
// period (peer input, checked), and the summary of the periods.

#include "engine/soak.hpp"

#include <memory>
#include <utility>

#include "catch2_compat.hpp"
#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/control/wire.hpp"
#include "rdmabench/system/stop_signals.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using rdmabench::SizeResult;
using rdmabench::test::MessageContains;

namespace {

rdmabench::Session soak_client(rdmabench::ControlChannel channel) {
  rdmabench::TestSpec spec;
  spec.run_infinitely = true;
  return rdmabench::Session(rdmabench::Role::client,
                            std::make_unique<rdmabench::ControlChannel>(std::move(channel)), spec,
                            rdmabench::Milliseconds(2000), nullptr);
}

/// A bandwidth period: `messages` of 1 MB in `seconds`, in intervals of
/// 100 ms at `rates` MB/s, and `seq_errors` sequence errors.
SizeResult soak_period(std::uint64_t messages, double seconds, std::vector<double> rates,
                       std::uint64_t seq_errors) {
  SizeResult r;
  r.bytes = 1'000'000;
  r.iterations = messages;
  const double mbps = static_cast<double>(messages) / seconds;
  r.bandwidth = rdmabench::BandwidthFigures{seconds, mbps * 1.1, mbps, static_cast<double>(messages) / seconds / 1e6, messages, {}};
  rdmabench::BandwidthOverTime t;
  t.interval_ms = 100;
  t.mb_per_s = rates;
  t.lengths_ms.assign(rates.size(), 100.0);
  r.over_time = t;
  r.counters = rdmabench::CounterDeltas{"rxe0 port 1 hw_counters", false, 20, {{"rcvd_seq_err", seq_errors}}, {}};
  return r;
}

}  // namespace

TEST_CASE("soak: the run goes on only while both sides say so", "[soak]") {
  auto [ours, theirs] = rdmabench::make_control_pair();
  auto client = soak_client(std::move(ours));
  auto decide = [&](bool mine, std::uint32_t their_number) {
    theirs.send(rdmabench::wire::Barrier{their_number});
    return rdmabench::detail::agree_to_go_on(client, mine);
  };
  CHECK(decide(true, 0xFFFF'FF10).go_on);
  const auto peer_stops = decide(true, 0xFFFF'FF11);
  CHECK_FALSE(peer_stops.go_on);
  CHECK(peer_stops.stopped_by == "a stop signal on the peer");
  const auto we_stop = decide(false, 0xFFFF'FF10);
  CHECK_FALSE(we_stop.go_on);
  CHECK_THAT(we_stop.stopped_by, Catch::EndsWith("on this side"));
  // Any other number is a peer that lost the thread (or lies): the run ends.
  REQUIRE_THROWS_MATCHES(decide(true, 7), rdmabench::Error,
                         MessageContains("after a soak period the peer sent barrier 7"));
}

TEST_CASE("soak: the summary adds the periods up", "[soak]") {
  rdmabench::detail::SoakTotals totals;
  totals.add(soak_period(2000, 2.0, {1000, 1000}, 1));
  totals.add(soak_period(2000, 2.0, {1000, 1000}, 2));
  totals.add(soak_period(100, 0.5, {200}, 0));  // the period a signal cut short
  const auto s = totals.summary("SIGINT on this side");
  CHECK(s.periods == 3);
  CHECK(s.stopped_by == "SIGINT on this side");
  REQUIRE(s.whole.bandwidth);
  CHECK(s.whole.bandwidth->messages == 4100);
  CHECK(s.whole.iterations == 4100);
  CHECK(s.whole.bandwidth->seconds == Approx(4.5));
  CHECK(s.whole.bandwidth->average_mb_per_s == Approx(4100.0 / 4.5));
  REQUIRE(s.whole.over_time);
  CHECK(s.whole.over_time->mb_per_s.size() == 5);  // every interval of every period
  CHECK(s.whole.over_time->min_mb_per_s == Approx(200.0));
  CHECK(s.whole.over_time->p50_mb_per_s == Approx(1000.0));
  REQUIRE(s.whole.counters);
  CHECK(s.whole.counters->moved.at("rcvd_seq_err") == 3);
}

TEST_CASE("soak: the summary of a latency soak keeps the period with the highest p99", "[soak]") {
  rdmabench::detail::SoakTotals totals;
  for (double p99 : {5.0, 9.0, 7.0}) {
    SizeResult r;
    r.bytes = 2;
    r.latency = rdmabench::LatencySummary{};
    r.latency->count = 1000;
    r.latency->p99 = p99;
    totals.add(r);
  }
  const auto s = totals.summary("a stop signal on the peer");
  REQUIRE(s.whole.latency);
  CHECK(s.whole.latency->p99 == 9.0);
  CHECK_FALSE(s.whole.bandwidth);
}

TEST_CASE("soak: a stop signal sets the flag instead of ending the process, while caught", "[soak]") {
  {
    rdmabench::StopSignals caught;
    CHECK_FALSE(rdmabench::StopSignals::flag().load());
    std::raise(SIGTERM);
    CHECK(rdmabench::StopSignals::flag().load());
    CHECK(std::string(rdmabench::StopSignals::received()) == "SIGTERM");
  }
  // Caught again: the flag starts clear.
  rdmabench::StopSignals again;
  CHECK_FALSE(rdmabench::StopSignals::flag().load());
}
