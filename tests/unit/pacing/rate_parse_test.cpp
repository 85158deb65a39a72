// --rate values: every accepted spelling, the refusals and their messages,
// the conversion to messages per second, and the report's formatting.

#include "catch2_compat.hpp"

#include <string>

#include "rdmabench/pacing/rate.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using rdmabench::format_rate;
using rdmabench::messages_per_second;
using rdmabench::parse_rate;
using rdmabench::Rate;
using rdmabench::RateUnit;
using rdmabench::test::MessageContains;

namespace {

void check_parse(const std::string& text, double value, RateUnit unit) {
  INFO("--rate " << text);
  const Rate rate = parse_rate(text);
  CHECK(rate.value == Approx(value).epsilon(1e-12));
  CHECK(rate.unit == unit);
}

}  // namespace

TEST_CASE("Rate: bit rates are decimal SI", "[rate]") {
  check_parse("10Gbps", 10e9, RateUnit::bits_per_second);
  check_parse("2.5Gbps", 2.5e9, RateUnit::bits_per_second);
  check_parse("100Mbps", 100e6, RateUnit::bits_per_second);
  check_parse("500kbps", 500e3, RateUnit::bits_per_second);
  check_parse("800bps", 800, RateUnit::bits_per_second);
}

TEST_CASE("Rate: byte rates are decimal SI, K and k alike", "[rate]") {
  check_parse("500MBps", 500e6, RateUnit::bytes_per_second);
  check_parse("2GBps", 2e9, RateUnit::bytes_per_second);
  check_parse("10KBps", 10e3, RateUnit::bytes_per_second);
  check_parse("100kBps", 100e3, RateUnit::bytes_per_second);
}

TEST_CASE("Rate: message rates, with a unit or as a bare number", "[rate]") {
  check_parse("200kpps", 200e3, RateUnit::messages_per_second);
  check_parse("1.5Mpps", 1.5e6, RateUnit::messages_per_second);
  check_parse("3000pps", 3000, RateUnit::messages_per_second);
  check_parse("3000", 3000, RateUnit::messages_per_second);
  check_parse("0.5", 0.5, RateUnit::messages_per_second);
  check_parse("1e4", 1e4, RateUnit::messages_per_second);
}

TEST_CASE("Rate: an unknown unit is named, with the accepted forms", "[rate]") {
  REQUIRE_THROWS_MATCHES(parse_rate("10Gb"), rdmabench::Error,
                         MessageContains("--rate '10Gb': unknown unit 'Gb'; use a number with bps"));
  REQUIRE_THROWS_MATCHES(parse_rate("10Gb"), rdmabench::Error,
                         MessageContains("or a bare number of messages per second"));
  // Prefixes are case-sensitive: m would be milli, and upper-case bits are
  // not accepted so that Gbps and GBps never pass for each other by accident.
  for (const char* text : {"10gbps", "10GBPS", "10mbps", "10MBPS", "10Kbps", "10Kpps", "10mpps",
                           "10 Gbps", "10Gbps ", "10Tbps", "10bit/s"}) {
    INFO("--rate " << text);
    REQUIRE_THROWS_MATCHES(parse_rate(text), rdmabench::Error, MessageContains("unknown unit"));
  }
}

TEST_CASE("Rate: text without a leading number is refused", "[rate]") {
  for (const char* text : {"", "Gbps", "fast", "+10Gbps", ".Gbps"}) {
    INFO("--rate '" << text << "'");
    REQUIRE_THROWS_MATCHES(parse_rate(text), rdmabench::Error, MessageContains("expected a number first"));
  }
  REQUIRE_THROWS_MATCHES(parse_rate("1e999pps"), rdmabench::Error, MessageContains("out of range"));
  // Finite as written, infinite once the prefix is applied.
  REQUIRE_THROWS_MATCHES(parse_rate("1e308Gbps"), rdmabench::Error, MessageContains("out of range"));
}

TEST_CASE("Rate: zero, negative and non-finite rates are refused", "[rate]") {
  for (const char* text : {"0", "0Gbps", "-5Gbps", "-1"}) {
    INFO("--rate " << text);
    REQUIRE_THROWS_MATCHES(parse_rate(text), rdmabench::Error, MessageContains("must be above zero"));
  }
  for (const char* text : {"inf", "infpps", "nan", "nanGbps"}) {
    INFO("--rate " << text);
    REQUIRE_THROWS_MATCHES(parse_rate(text), rdmabench::Error, MessageContains("must be a finite number"));
  }
}

TEST_CASE("Rate: message rates above 1e10 per second are refused", "[rate]") {
  CHECK(parse_rate("1e10").value == 1e10);
  CHECK(parse_rate("10000Mpps").value == 1e10);
  REQUIRE_THROWS_MATCHES(parse_rate("1.1e10"), rdmabench::Error,
                         MessageContains("above the limit of 1e+10 messages per second"));
  REQUIRE_THROWS_MATCHES(parse_rate("20000Mpps"), rdmabench::Error, MessageContains("above the limit"));
}

TEST_CASE("Rate: converted to messages per second at a message size", "[rate]") {
  CHECK(messages_per_second(parse_rate("10Gbps"), 4096) == Approx(10e9 / 8 / 4096));
  CHECK(messages_per_second(parse_rate("800bps"), 1) == Approx(100));
  CHECK(messages_per_second(parse_rate("500MBps"), 1000) == Approx(500e3));
  CHECK(messages_per_second(parse_rate("2GBps"), 65536) == Approx(2e9 / 65536));
  // A message rate does not depend on the size, zero included.
  CHECK(messages_per_second(parse_rate("200kpps"), 4096) == 200e3);
  CHECK(messages_per_second(parse_rate("3000"), 0) == 3000);
}

TEST_CASE("Rate: a conversion beyond 1e10 messages per second or to 0-byte messages is refused",
          "[rate]") {
  // 100 Gb/s of 1-byte messages is 1.25e10 messages per second.
  REQUIRE_THROWS_MATCHES(messages_per_second(parse_rate("100Gbps"), 1), rdmabench::Error,
                         MessageContains("100 Gb/s at 1 B per message is 1.25e+10 messages per second"));
  CHECK(messages_per_second(parse_rate("80Gbps"), 1) == Approx(1e10));
  REQUIRE_THROWS_MATCHES(messages_per_second(parse_rate("1Gbps"), 0), rdmabench::Error,
                         MessageContains("message size of at least 1 byte"));
}

TEST_CASE("Rate: formatted with the largest prefix that leaves at least 1", "[rate]") {
  CHECK(format_rate(parse_rate("10Gbps")) == "10 Gb/s");
  CHECK(format_rate(parse_rate("2.5Gbps")) == "2.5 Gb/s");
  CHECK(format_rate(parse_rate("500kbps")) == "500 kb/s");
  CHECK(format_rate(parse_rate("800bps")) == "800 b/s");
  CHECK(format_rate(parse_rate("500MBps")) == "500 MB/s");
  CHECK(format_rate(parse_rate("10KBps")) == "10 kB/s");
  CHECK(format_rate(parse_rate("200kpps")) == "200 kmsg/s");
  CHECK(format_rate(parse_rate("1.5Mpps")) == "1.5 Mmsg/s");
  CHECK(format_rate(parse_rate("3000")) == "3 kmsg/s");
  CHECK(format_rate(parse_rate("0.5")) == "0.5 msg/s");
  CHECK(format_rate(Rate{9.98765e9, RateUnit::bits_per_second}) == "9.988 Gb/s");
  CHECK(format_rate(Rate{999.9e6, RateUnit::bytes_per_second}) == "999.9 MB/s");
  CHECK(format_rate(Rate{1.6e12, RateUnit::bits_per_second}) == "1.6 Tb/s");
}
