// Achieved against target rates, in the target's unit, with exact numbers.

#include "catch2_compat.hpp"

#include <cstdint>

#include "rdmabench/pacing/achieved_rate.hpp"
#include "rdmabench/pacing/rate.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using rdmabench::achieved_rate;
using rdmabench::AchievedRate;
using rdmabench::format_achieved;
using rdmabench::parse_rate;
using rdmabench::RateUnit;
using rdmabench::test::MessageContains;

namespace {
// A nanosecond clock.
constexpr double kRateTicksPerUs = 1000;
}  // namespace

TEST_CASE("Achieved rate: bits per second of payload", "[rate]") {
  // 10^6 messages of 4096 B in 3.2768 s: 3.2768e10 bits, exactly 10 Gb/s.
  const AchievedRate r = achieved_rate(parse_rate("10Gbps"), 1'000'000, 4096, 3'276'800'000, kRateTicksPerUs);
  CHECK(r.achieved.unit == RateUnit::bits_per_second);
  CHECK(r.achieved.value == Approx(1e10).epsilon(1e-12));
  CHECK(r.ratio == Approx(1.0).epsilon(1e-12));
  CHECK(format_achieved(r) == "10 Gb/s of 10 Gb/s (100.00%)");
}

TEST_CASE("Achieved rate: bytes per second, short of the target", "[rate]") {
  // 250000 messages of 4000 B in 2.5 s: 400 MB/s of 500.
  const AchievedRate r = achieved_rate(parse_rate("500MBps"), 250'000, 4000, 2'500'000'000, kRateTicksPerUs);
  CHECK(r.achieved.unit == RateUnit::bytes_per_second);
  CHECK(r.achieved.value == Approx(400e6).epsilon(1e-12));
  CHECK(r.ratio == Approx(0.8).epsilon(1e-12));
  CHECK(format_achieved(r) == "400 MB/s of 500 MB/s (80.00%)");
}

TEST_CASE("Achieved rate: messages per second ignore the size", "[rate]") {
  // 399000 messages in 2 s on a 2.1 GHz clock: 199500 of 200000 per second.
  const AchievedRate r = achieved_rate(parse_rate("200kpps"), 399'000, 65536, 4'200'000'000, 2100);
  CHECK(r.achieved.unit == RateUnit::messages_per_second);
  CHECK(r.achieved.value == Approx(199'500).epsilon(1e-12));
  CHECK(r.ratio == Approx(0.9975).epsilon(1e-12));
  CHECK(format_achieved(r) == "199.5 kmsg/s of 200 kmsg/s (99.75%)");
  // Above the target too: 1 % over.
  CHECK(achieved_rate(parse_rate("3000"), 6060, 8, 2'000'000'000, kRateTicksPerUs).ratio ==
        Approx(1.01).epsilon(1e-12));
}

TEST_CASE("Achieved rate: no elapsed time or a bad clock is refused", "[rate]") {
  REQUIRE_THROWS_MATCHES(achieved_rate(parse_rate("1Gbps"), 10, 64, 0, kRateTicksPerUs), rdmabench::Error,
                         MessageContains("elapsed time above zero"));
  REQUIRE_THROWS_MATCHES(achieved_rate(parse_rate("1Gbps"), 10, 64, 100, 0), rdmabench::Error,
                         MessageContains("ticks per microsecond"));
  REQUIRE_THROWS_MATCHES(achieved_rate({0, RateUnit::bits_per_second}, 10, 64, 100, kRateTicksPerUs),
                         rdmabench::Error, MessageContains("target rate must be positive"));
}
