// CPU accounting: the /proc parsers on recorded texts (tests/data/cpu), the
// usage between two recorded snapshots against values computed by hand, the
// refusals, and one live measurement around a busy loop.

#include "catch2_compat.hpp"
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "rdmabench/system/cpu_usage.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using rdmabench::cpu_usage_between;
using rdmabench::CpuSnapshot;
using rdmabench::parse_proc_self_stat;
using rdmabench::parse_proc_stat;
using rdmabench::take_cpu_snapshot;
using rdmabench::test::MessageContains;

namespace {

std::string fixture(const std::string& name) {
  const std::string path = std::string(RDMABENCH_TEST_DATA) + "/cpu/" + name;
  std::ifstream in(path);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The recorded pair: 2 s apart at 100 ticks per second on 2 CPUs, so the
// machine counters advance by 400 ticks in all. Between them:
//   process: utime 1200 -> 1350, stime 340 -> 370 (1.5 s user, 0.3 s system)
//   machine: user +180 nice +4 system +60 idle +100 iowait +10 irq +6
//            softirq +20 steal +20 (guest +15, already inside user)
CpuSnapshot recorded_before() {
  CpuSnapshot s;
  s.wall_s = 1000.0;
  s.ticks_per_second = 100;
  s.process = parse_proc_self_stat(fixture("proc_self_stat_before.txt"), 100);
  s.machine = parse_proc_stat(fixture("proc_stat_2cpu_before.txt"));
  return s;
}

CpuSnapshot recorded_after() {
  CpuSnapshot s;
  s.wall_s = 1002.0;
  s.ticks_per_second = 100;
  s.process = parse_proc_self_stat(fixture("proc_self_stat_after.txt"), 100);
  s.machine = parse_proc_stat(fixture("proc_stat_2cpu_after.txt"));
  return s;
}

double process_cpu_clock_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

TEST_CASE("parse_proc_stat: a current kernel's file, 2 CPUs", "[cpu]") {
  const auto m = parse_proc_stat(fixture("proc_stat_2cpu_before.txt"));
  CHECK(m.user == 219481);
  CHECK(m.nice == 120);
  CHECK(m.system == 28273);
  CHECK(m.idle == 442759);
  CHECK(m.iowait == 1204);
  CHECK(m.irq == 30);
  CHECK(m.softirq == 452);
  CHECK(m.steal == 120);
  CHECK(m.cpus == 2);  // cpu0, cpu1; not the "cpu" line itself
}

TEST_CASE("parse_proc_stat: Linux 2.6.9, 7 fields and no steal, 4 CPUs", "[cpu]") {
  const auto m = parse_proc_stat(fixture("proc_stat_linux_2_6_9.txt"));
  CHECK(m.user == 8500);
  CHECK(m.nice == 12);
  CHECK(m.system == 2300);
  CHECK(m.idle == 190000);
  CHECK(m.iowait == 400);
  CHECK(m.irq == 35);
  CHECK(m.softirq == 120);
  CHECK(m.steal == 0);
  CHECK(m.cpus == 4);
}

TEST_CASE("parse_proc_stat: Linux 2.4, 4 fields: and lines in any order", "[cpu]") {
  const auto m = parse_proc_stat("page 5741 1808\ncpu0 40 1 50 900\ncpu  40 1 50 900\nctxt 1\n");
  CHECK(m.user == 40);
  CHECK(m.nice == 1);
  CHECK(m.system == 50);
  CHECK(m.idle == 900);
  CHECK(m.iowait == 0);
  CHECK(m.irq == 0);
  CHECK(m.softirq == 0);
  CHECK(m.steal == 0);
  CHECK(m.cpus == 1);
}

TEST_CASE("parse_proc_stat: counters beyond 2^32 and 2^53 stay exact", "[cpu]") {
  const auto m =
      parse_proc_stat("cpu 18446744073709551615 4294967296 9007199254740993 1\ncpu0 0 0 0 0\n");
  CHECK(m.user == 18446744073709551615u);
  CHECK(m.nice == 4294967296u);
  CHECK(m.system == 9007199254740993u);
}

TEST_CASE("parse_proc_stat: rejects text it cannot read", "[cpu]") {
  REQUIRE_THROWS_MATCHES(parse_proc_stat(""), rdmabench::Error,
                         MessageContains("no aggregate \"cpu\" line"));
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu0 1 2 3 4\ncpu1 1 2 3 4\nctxt 5\n"), rdmabench::Error,
                         MessageContains("no aggregate \"cpu\" line"));
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu 1 2 3 4\nctxt 5\n"), rdmabench::Error,
                         MessageContains("no per-CPU lines"));
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu 1 2 3\ncpu0 1 2 3\n"), rdmabench::Error,
                         MessageContains("has 3 numbers"));
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu 1 2 x 4\ncpu0 1 2 3 4\n"), rdmabench::Error,
                         MessageContains("cpu system is not a non-negative integer: \"x\""));
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu 1 2 3 4 -5\ncpu0 1 2 3 4\n"), rdmabench::Error,
                         MessageContains("cpu iowait is not a non-negative integer: \"-5\""));
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu 1 2 3 4 5 6 7 8x\ncpu0 1 2 3 4\n"), rdmabench::Error,
                         MessageContains("cpu steal"));
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu 1 2 3 4 99999999999999999999\ncpu0 1 2 3 4\n"),
                         rdmabench::Error, MessageContains("cpu iowait"));  // beyond 2^64
  REQUIRE_THROWS_MATCHES(parse_proc_stat("cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu 1 2 3 4\n"),
                         rdmabench::Error, MessageContains("more than one"));
}

TEST_CASE("parse_proc_self_stat: a real line", "[cpu]") {
  // cat's own /proc/self/stat, with utime and stime edited to 275 and 12.
  const std::string text =
      "31982 (cat) R 31976 31976 31259 0 -1 4194304 99 0 0 0 275 12 0 0 20 0 1 0 347958 "
      "3133440 382 18446744073709551615 94358931386368 94358931406249 140725418015312 0 0 0 0 "
      "0 0 0 0 0 17 0 0 0 0 0 0 94358931422256 94358931423872 94359259889664 140725418019457 "
      "140725418019477 140725418019477 140725418020843 0\n";
  const auto p = parse_proc_self_stat(text, 100);
  CHECK(p.user_s == Approx(2.75));
  CHECK(p.system_s == Approx(0.12));
  const auto fast = parse_proc_self_stat(text, 250);  // ticks are not always 10 ms
  CHECK(fast.user_s == Approx(1.1));
  CHECK(fast.system_s == Approx(0.048));
}

TEST_CASE("parse_proc_self_stat: a command name with spaces and parentheses", "[cpu]") {
  // Fields 10..17 all differ, so splitting at the first ')' or at every space
  // reads some other field and fails here.
  const auto p = parse_proc_self_stat(fixture("proc_self_stat_before.txt"), 100);
  CHECK(p.user_s == Approx(12.0));
  CHECK(p.system_s == Approx(3.4));

  const auto tricky =
      parse_proc_self_stat("7 (x) 1 2 3 4 5 6) S 1 2 3 4 5 6 7 8 9 10 42 17 11 12 13 14\n", 100);
  CHECK(tricky.user_s == Approx(0.42));
  CHECK(tricky.system_s == Approx(0.17));
}

TEST_CASE("parse_proc_self_stat: rejects text it cannot read", "[cpu]") {
  const std::string good = "1 (a) R 1 2 3 4 5 6 7 8 9 10 42 17\n";
  CHECK(parse_proc_self_stat(good, 100).user_s == Approx(0.42));
  REQUIRE_THROWS_MATCHES(parse_proc_self_stat("", 100), rdmabench::Error,
                         MessageContains("no parenthesised command name"));
  REQUIRE_THROWS_MATCHES(parse_proc_self_stat("1 a R 1 2 3 4 5 6 7 8 9 10 42 17", 100),
                         rdmabench::Error, MessageContains("no parenthesised command name"));
  REQUIRE_THROWS_MATCHES(parse_proc_self_stat("1 (a) R 1 2 3 4 5 6 7 8 9 10 42", 100),
                         rdmabench::Error, MessageContains("ends after field 14"));
  REQUIRE_THROWS_MATCHES(parse_proc_self_stat("1 (a) R 1 2 3 4 5 6 7 8 9 10 4.2 17", 100),
                         rdmabench::Error, MessageContains("utime (field 14)"));
  REQUIRE_THROWS_MATCHES(parse_proc_self_stat("1 (a) R 1 2 3 4 5 6 7 8 9 10 42 -1", 100),
                         rdmabench::Error, MessageContains("stime (field 15)"));
  REQUIRE_THROWS_MATCHES(parse_proc_self_stat(good, 0), rdmabench::Error,
                         MessageContains("clock ticks per second must be positive"));
}

TEST_CASE("cpu_usage_between: two recorded snapshots, by hand", "[cpu]") {
  const auto u = cpu_usage_between(recorded_before(), recorded_after(), 1'000'000'000);
  CHECK(u.wall_s == Approx(2.0));
  CHECK(u.resolution_s == Approx(0.01));

  CHECK(u.process_cpu_s == Approx(1.8));          // 1.5 + 0.3
  CHECK(u.process_cores == Approx(0.9));          // 1.8 / 2
  CHECK(u.process_user_cores == Approx(0.75));    // 1.5 / 2
  CHECK(u.process_system_cores == Approx(0.15));  // 0.3 / 2
  REQUIRE(u.process_cpu_s_per_gb.has_value());
  CHECK(*u.process_cpu_s_per_gb == Approx(1.8));  // 1.8 s / 1 GB

  CHECK(u.machine_cpus == 2);
  CHECK(u.machine_user_cores == Approx(0.9));  // 180 ticks / 100 / 2 s
  CHECK(u.machine_nice_cores == Approx(0.02));
  CHECK(u.machine_system_cores == Approx(0.3));
  CHECK(u.machine_irq_cores == Approx(0.03));
  CHECK(u.machine_softirq_cores == Approx(0.1));
  CHECK(u.machine_steal_cores == Approx(0.1));
  REQUIRE(u.machine_iowait_cores.has_value());
  CHECK(*u.machine_iowait_cores == Approx(0.05));
  CHECK(u.machine_cores == Approx(1.45));  // 290 busy of 400 ticks; guest not counted twice
}

TEST_CASE("cpu_usage_between: bytes moved set the CPU cost per GB", "[cpu]") {
  const auto before = recorded_before();
  const auto after = recorded_after();
  CHECK_FALSE(cpu_usage_between(before, after, 0).process_cpu_s_per_gb.has_value());
  CHECK(*cpu_usage_between(before, after, 500'000'000).process_cpu_s_per_gb == Approx(3.6));
  CHECK(*cpu_usage_between(before, after, 18'000'000'000).process_cpu_s_per_gb == Approx(0.1));
}

TEST_CASE("cpu_usage_between: other tick rates and CPU counts", "[cpu]") {
  auto before = recorded_before();
  auto after = recorded_after();
  // The same counters at 250 ticks per second over 0.8 s: 1.8 s of process
  // ticks at 100/s are 0.72 s at 250/s.
  before.ticks_per_second = after.ticks_per_second = 250;
  before.process = parse_proc_self_stat(fixture("proc_self_stat_before.txt"), 250);
  after.process = parse_proc_self_stat(fixture("proc_self_stat_after.txt"), 250);
  after.wall_s = before.wall_s + 0.8;
  const auto u = cpu_usage_between(before, after, 0);
  CHECK(u.resolution_s == Approx(0.004));
  CHECK(u.process_cores == Approx(0.9));   // 0.72 / 0.8
  CHECK(u.machine_cores == Approx(1.45));  // 290 / 250 / 0.8
  CHECK(u.machine_cpus == 2);
}

TEST_CASE("cpu_usage_between: refuses backwards or mismatched snapshots", "[cpu]") {
  const auto before = recorded_before();
  const auto after = recorded_after();

  SECTION("swapped") {
    REQUIRE_THROWS_MATCHES(cpu_usage_between(after, before, 0), rdmabench::Error,
                           MessageContains("wall time between the CPU snapshots is not positive"));
  }
  SECTION("no wall time, or NaN") {
    REQUIRE_THROWS_MATCHES(cpu_usage_between(before, before, 0), rdmabench::Error,
                           MessageContains("not positive"));
    auto nan = after;
    nan.wall_s = std::numeric_limits<double>::quiet_NaN();
    REQUIRE_THROWS_MATCHES(cpu_usage_between(before, nan, 0), rdmabench::Error,
                           MessageContains("not positive"));
  }
  SECTION("process times backwards") {
    auto bad = after;
    bad.process.user_s = before.process.user_s - 0.01;
    REQUIRE_THROWS_MATCHES(cpu_usage_between(before, bad, 0), rdmabench::Error,
                           MessageContains("process user CPU time went backwards"));
    bad = after;
    bad.process.system_s = before.process.system_s - 0.01;
    REQUIRE_THROWS_MATCHES(cpu_usage_between(before, bad, 0), rdmabench::Error,
                           MessageContains("process system CPU time went backwards"));
  }
  SECTION("each busy machine counter backwards") {
    struct Case {
      std::uint64_t rdmabench::MachineCpu::*field;
      const char* name;
    };
    for (const Case c : {Case{&rdmabench::MachineCpu::user, "/proc/stat user went backwards"},
                         Case{&rdmabench::MachineCpu::nice, "/proc/stat nice went backwards"},
                         Case{&rdmabench::MachineCpu::system, "/proc/stat system went backwards"},
                         Case{&rdmabench::MachineCpu::irq, "/proc/stat irq went backwards"},
                         Case{&rdmabench::MachineCpu::softirq, "/proc/stat softirq went backwards"},
                         Case{&rdmabench::MachineCpu::steal, "/proc/stat steal went backwards"}}) {
      INFO(c.name);
      auto bad = after;
      bad.machine.*c.field = before.machine.*c.field - 1;
      REQUIRE_THROWS_MATCHES(cpu_usage_between(before, bad, 0), rdmabench::Error,
                             MessageContains(c.name));
    }
  }
  SECTION("a wrapped counter is named with its values") {
    auto bad = after;
    bad.machine.user = 5;
    REQUIRE_THROWS_MATCHES(cpu_usage_between(before, bad, 0), rdmabench::Error,
                           MessageContains("(219481 ticks -> 5 ticks)"));
  }
  SECTION("idle + iowait backwards") {
    auto bad = after;
    bad.machine.idle = before.machine.idle - 3;
    bad.machine.iowait = before.machine.iowait + 2;
    REQUIRE_THROWS_MATCHES(cpu_usage_between(before, bad, 0), rdmabench::Error,
                           MessageContains("/proc/stat idle + iowait went backwards"));
  }
  SECTION("different tick rates") {
    auto bad = after;
    bad.ticks_per_second = 250;
    REQUIRE_THROWS_MATCHES(cpu_usage_between(before, bad, 0), rdmabench::Error,
                           MessageContains("different or invalid clock tick rates (100 and 250"));
    auto zero_before = before;
    auto zero_after = after;
    zero_before.ticks_per_second = zero_after.ticks_per_second = 0;
    REQUIRE_THROWS_MATCHES(cpu_usage_between(zero_before, zero_after, 0), rdmabench::Error,
                           MessageContains("invalid clock tick rates"));
  }
  SECTION("CPUs went on- or offline") {
    auto bad = after;
    bad.machine.cpus = 3;
    REQUIRE_THROWS_MATCHES(
        cpu_usage_between(before, bad, 0), rdmabench::Error,
        MessageContains("number of online CPUs changed between the CPU snapshots (2 -> 3)"));
  }
}

TEST_CASE("cpu_usage_between: time moved between idle and iowait leaves iowait unknown", "[cpu]") {
  const auto before = recorded_before();
  auto after = recorded_after();
  // Same 110 idle + iowait ticks as the recording, split differently.
  after.machine.idle = before.machine.idle + 115;
  after.machine.iowait = before.machine.iowait - 5;
  auto u = cpu_usage_between(before, after, 0);
  CHECK_FALSE(u.machine_iowait_cores.has_value());
  CHECK(u.machine_cores == Approx(1.45));  // busy figures are unaffected

  after.machine.idle = before.machine.idle - 5;
  after.machine.iowait = before.machine.iowait + 115;
  u = cpu_usage_between(before, after, 0);
  CHECK_FALSE(u.machine_iowait_cores.has_value());
  CHECK(u.machine_cores == Approx(1.45));
}

TEST_CASE("to_json: keys with units, null for what is unknown", "[cpu]") {
  const auto u = cpu_usage_between(recorded_before(), recorded_after(), 1'000'000'000);
  const auto j = rdmabench::to_json(u);
  CHECK(j.at("wall_s").get<double>() == Approx(2.0));
  CHECK(j.at("resolution_s").get<double>() == Approx(0.01));
  const auto& p = j.at("process");
  CHECK(p.size() == 5);
  CHECK(p.at("cpu_s").get<double>() == Approx(1.8));
  CHECK(p.at("cores").get<double>() == Approx(0.9));
  CHECK(p.at("user_cores").get<double>() == Approx(0.75));
  CHECK(p.at("system_cores").get<double>() == Approx(0.15));
  CHECK(p.at("cpu_s_per_GB").get<double>() == Approx(1.8));
  const auto& m = j.at("machine");
  CHECK(m.size() == 9);
  CHECK(m.at("cpus").get<int>() == 2);
  CHECK(m.at("cores").get<double>() == Approx(1.45));
  CHECK(m.at("user_cores").get<double>() == Approx(0.9));
  CHECK(m.at("nice_cores").get<double>() == Approx(0.02));
  CHECK(m.at("system_cores").get<double>() == Approx(0.3));
  CHECK(m.at("irq_cores").get<double>() == Approx(0.03));
  CHECK(m.at("softirq_cores").get<double>() == Approx(0.1));
  CHECK(m.at("steal_cores").get<double>() == Approx(0.1));
  CHECK(m.at("iowait_cores").get<double>() == Approx(0.05));

  auto unknown = u;
  unknown.process_cpu_s_per_gb.reset();
  unknown.machine_iowait_cores.reset();
  const auto k = rdmabench::to_json(unknown);
  CHECK(k.at("process").at("cpu_s_per_GB").is_null());
  CHECK(k.at("machine").at("iowait_cores").is_null());
}

// The machine is shared (builds, other tests), so a fixed floor on
// process_cores would be flaky: the loop spins for 200 ms of CPU time, and the
// result is checked against the kernel's precise per-process CPU clock. That
// still catches unit mistakes (ticks for seconds, per-CPU for total) either way.
// [host-proc]: reads the kernel's own /proc/self/stat CPU times, which
// qemu-user replaces with zeros (the cross build reports it SKIPPED).
TEST_CASE("take_cpu_snapshot: live, around a 200 ms busy loop", "[cpu][host-proc]") {
  const auto outer_start = std::chrono::steady_clock::now();
  const auto before = take_cpu_snapshot();
  const auto inner_start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_clock_s();
  const auto wall_cap = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  volatile std::uint64_t sink = 0;
  while (process_cpu_clock_s() - cpu_start < 0.2 && std::chrono::steady_clock::now() < wall_cap) {
    for (int i = 0; i < 1'000'000; ++i) sink = sink + static_cast<std::uint64_t>(i);
  }
  const double cpu_spent = process_cpu_clock_s() - cpu_start;
  const auto inner_end = std::chrono::steady_clock::now();
  const auto after = take_cpu_snapshot();
  const auto outer_end = std::chrono::steady_clock::now();
  const auto seconds = [](std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double>(d).count();
  };
  const auto u = cpu_usage_between(before, after, 0);
  INFO("wall " << u.wall_s << " s, process " << u.process_cpu_s << " s (CPU clock " << cpu_spent
               << " s), " << u.process_cores << " cores; machine " << u.machine_cores << " of "
               << u.machine_cpus << " CPUs");

  REQUIRE(cpu_spent >= 0.2);  // else the wall cap hit: the machine is hopelessly overloaded
  CHECK(u.resolution_s == Approx(1.0 / static_cast<double>(sysconf(_SC_CLK_TCK))));
  // steady_clock is CLOCK_MONOTONIC too; the snapshots lie between these reads.
  CHECK(u.wall_s >= seconds(inner_end - inner_start));
  CHECK(u.wall_s <= seconds(outer_end - outer_start));
  CHECK(u.wall_s >= cpu_spent);  // one thread cannot use more CPU than wall time

  // utime and stime are each truncated to whole ticks at both snapshots.
  const double slack = 2 * u.resolution_s + 0.005;
  CHECK(u.process_cpu_s == Approx(cpu_spent).margin(slack));
  CHECK(u.process_cores == Approx(cpu_spent / u.wall_s).margin(slack / u.wall_s));
  CHECK(u.process_cores <= 1.0 + slack / u.wall_s);
  // The clock reads are the loop's only system calls.
  CHECK(u.process_user_cores > u.process_system_cores);

  const bool cpus_match = u.machine_cpus == static_cast<int>(std::thread::hardware_concurrency()) ||
                          u.machine_cpus == static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  CHECK(cpus_match);
  // The machine figures include this process; the kernel samples them per
  // tick, so allow half of it to go missing, and a few ticks over all CPUs.
  CHECK(u.machine_cores >= 0.5 * u.process_cores);
  CHECK(u.machine_cores <= u.machine_cpus + 8 * u.resolution_s / u.wall_s);
}
