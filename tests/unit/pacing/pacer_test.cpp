// The open-loop pacer on synthetic clock ticks: the schedule and its
// fixed-point arithmetic, bursts, and catching up after a stall without a
// post chain longer than the burst. No real clock is read.

#include "catch2_compat.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

#include "rdmabench/pacing/pacer.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"
#include "windowed_poster.hpp"

using rdmabench::Pacer;
using rdmabench::test::MessageContains;
using rdmabench::test::WindowedPoster;

namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

}  // namespace

TEST_CASE("Pacer: message i is due at start + i * interval", "[pacer]") {
  Pacer pacer(5000, 1000, 8);
  CHECK(pacer.intended(0) == 5000);
  CHECK(pacer.intended(3) == 8000);
  CHECK(pacer.next_due_ticks() == 5000);
  CHECK(pacer.due(0) == 0);
  CHECK(pacer.due(4999) == 0);
  CHECK(pacer.due(5000) == 1);
  CHECK(pacer.due(7999) == 3);
  CHECK(pacer.due(8000) == 4);
  pacer.mark_posted(3);
  CHECK(pacer.posted() == 3);
  CHECK(pacer.next_due_ticks() == 8000);
  CHECK(pacer.due(7999) == 0);
  CHECK(pacer.due(8000) == 1);
  CHECK(pacer.ticks_per_message() == 1000);
}

TEST_CASE("Pacer: due() never exceeds the burst, however far behind", "[pacer]") {
  for (std::uint64_t burst : {1u, 2u, 5u, 64u}) {
    INFO("burst " << burst);
    Pacer pacer(0, 10, burst);
    CHECK(pacer.due(1'000'000) == burst);
    // Each count below the burst is found exactly (the binary search).
    for (std::uint64_t due = 1; due <= burst; ++due) CHECK(pacer.due(10 * (due - 1) + 9) == due);
  }
}

TEST_CASE("Pacer: due() counts exactly the due messages, up to the burst", "[pacer]") {
  // Against a plain count over intended(), at fractional intervals, random
  // instants and random progress; a fixed seed keeps any failure repeatable.
  std::mt19937_64 random(19);
  std::uniform_real_distribution<double> interval_of(0.3, 5000.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint64_t burst = 1 + random() % 40;
    Pacer pacer(100'000 + random() % 100'000, interval_of(random), burst);
    pacer.mark_posted(random() % 1000);
    const std::uint64_t now = pacer.next_due_ticks() + random() % 200'000 - 100'000;
    std::uint64_t expected = 0;
    while (expected < burst && pacer.intended(pacer.posted() + expected) <= now) ++expected;
    INFO("trial " << trial << ", interval " << pacer.ticks_per_message() << ", burst " << burst);
    REQUIRE(pacer.due(now) == expected);
  }
}

TEST_CASE("Pacer: a fractional interval is exact in fixed point, without drift", "[pacer]") {
  // 1000 + 1/1024 ticks is exact in binary: intended(i) = 1000 i + floor(i / 1024).
  Pacer pacer(7, 1000 + 1.0 / 1024, 1);
  for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{1023}, std::uint64_t{1024}, std::uint64_t{1'000'000},
                          std::uint64_t{123'456'789'012}, std::uint64_t{1'000'000'000'000'000}}) {
    INFO("message " << i);
    CHECK(pacer.intended(i) == 7 + 1000 * i + i / 1024);
  }
  // A day at 1e9 messages per second on a 3 GHz clock (3 ticks each).
  CHECK(Pacer(0, 3, 1).intended(86'400'000'000'000) == 259'200'000'000'000);
  // An interval that binary cannot hold, 10^6 / 3 ticks: after 3 * 10^9
  // messages the schedule is still within a tick of 10^15.
  const Pacer third(0, 1e6 / 3, 1);
  const std::uint64_t at = third.intended(3'000'000'000);
  CHECK(at >= 999'999'999'999'999);
  CHECK(at <= 1'000'000'000'000'000);
}

TEST_CASE("Pacer: the schedule saturates at the clock's end rather than wrap", "[pacer]") {
  const Pacer late_start(kMaxU64 - 10, 4, 1);
  CHECK(late_start.intended(2) == kMaxU64 - 2);
  CHECK(late_start.intended(3) == kMaxU64);
  CHECK(late_start.intended(kMaxU64) == kMaxU64);
  const Pacer slow(0, 0x1p53 - 1, 1);
  CHECK(slow.intended(kMaxU64) == kMaxU64);
  CHECK(slow.due(kMaxU64 - 1) == 1);
}

TEST_CASE("Pacer: a prompt poster sends each message at its intended time", "[pacer]") {
  WindowedPoster poster{Pacer(100, 2.5, 4), 4, 3, {}, {}, 0, 0};
  poster.run(100'000, kMaxU64, kMaxU64);
  // Due before the end: 100 + floor(2.5 i) < 100000, i.e. i < 39960.
  REQUIRE(poster.posted_at.size() == 39'960);
  for (std::uint64_t i = 0; i < poster.posted_at.size(); ++i)
    REQUIRE(poster.posted_at[i] == poster.pacer.intended(i));
  CHECK(poster.early == 0);
}

TEST_CASE("Pacer: after a stall it catches up in chains of at most the burst", "[pacer]") {
  // 100 ticks per message, 200-tick service, window 16: steady needs 2 in
  // flight; the window allows 8 times the rate, so the backlog drains.
  const std::uint64_t burst = 4;
  WindowedPoster poster{Pacer(0, 100, burst), 16, 200, {}, {}, 0, 0};
  const std::uint64_t stall_from = 10'000, stall_to = 60'000, end = 200'000;
  poster.run(end, stall_from, stall_to);

  CHECK(poster.early == 0);
  CHECK(poster.largest_release == burst);
  // Never skipped: every slot up to the end was sent.
  CHECK(poster.posted_at.size() == end / 100);
  // The 500 messages due in the stall all left late, none before it ended.
  for (std::uint64_t i = stall_from / 100; i < stall_to / 100; ++i) REQUIRE(poster.posted_at[i] >= stall_to);
  // Draining 500 at 16 per 200 ticks, while 1 a 100 ticks falls due, takes
  // about 500 / (0.08 - 0.01) = 7143 ticks; from then on all leave on time.
  std::uint64_t last_late = 0;
  for (std::uint64_t i = 0; i < poster.posted_at.size(); ++i)
    if (poster.posted_at[i] != poster.pacer.intended(i)) last_late = i;
  CHECK(poster.pacer.intended(last_late) >= stall_to);
  CHECK(poster.posted_at[last_late] > stall_to + 6'500);
  CHECK(poster.posted_at[last_late] < stall_to + 7'500);
}

TEST_CASE("Pacer: an interval out of range and a zero burst are refused", "[pacer]") {
  for (double interval : {0.0, -1.0, 0x1p53, std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN()}) {
    INFO("interval " << interval);
    REQUIRE_THROWS_MATCHES(Pacer(0, interval, 1), rdmabench::Error, MessageContains("out of range"));
  }
  REQUIRE_THROWS_MATCHES(Pacer(0, 1e-30, 1), rdmabench::Error, MessageContains("rounds to zero"));
  REQUIRE_THROWS_MATCHES(Pacer(0, 10, 0), rdmabench::Error, MessageContains("burst must be at least 1"));
  CHECK(Pacer(0, 0.25, 1).ticks_per_message() == 0.25);
}

TEST_CASE("Pacer: ticks per message from a rate and a clock", "[pacer]") {
  CHECK(rdmabench::ticks_per_message(1e6, 1000) == 1000);
  CHECK(rdmabench::ticks_per_message(200e3, 2100) == Approx(10'500));
  CHECK(rdmabench::ticks_per_message(1e10, 1) == Approx(1e-4));
  REQUIRE_THROWS_MATCHES(rdmabench::ticks_per_message(0, 1000), rdmabench::Error,
                         MessageContains("positive and finite"));
  REQUIRE_THROWS_MATCHES(rdmabench::ticks_per_message(1e6, 0), rdmabench::Error,
                         MessageContains("ticks per microsecond"));
  REQUIRE_THROWS_MATCHES(rdmabench::ticks_per_message(1e-7, 3000), rdmabench::Error,
                         MessageContains("too slow to pace"));
}
