// A server's notices about clients it turned away: the first few of each
// window, then one line with the count; and the busy server's turn-away
// thread, which must not share the CPU --cpu pinned the timed loop to.

#include "catch2_compat.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "rdmabench/control/control_channel.hpp"
#include "rdmabench/control/session.hpp"
#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/verbs/error.hpp"
#include "control/notice_limiter.hpp"

using rdmabench::detail::NoticeLimiter;
using namespace std::chrono_literals;

TEST_CASE("notice limiter: the first of each window pass, the rest are counted in one line", "[control]") {
  std::vector<std::string> seen;
  const auto t0 = NoticeLimiter::Clock::time_point{} + 1h;
  {
    NoticeLimiter limit([&](const std::string& s) { seen.push_back(s); }, 3, 10s);
    for (int i = 0; i < 20; ++i) limit.say("refused " + std::to_string(i), t0 + i * 100ms);
    REQUIRE(seen == std::vector<std::string>{"refused 0", "refused 1", "refused 2"});
    // The next window: its first notice comes after the count of the last.
    limit.say("refused late", t0 + 10s);
    REQUIRE(seen.size() == 5);
    CHECK(seen[3] == "17 more clients turned away and not shown (at most 3 such lines per 10 s)");
    CHECK(seen[4] == "refused late");
    limit.say("one more", t0 + 11s);
    limit.say("and another", t0 + 12s);
    limit.say("held", t0 + 13s);
    CHECK(seen.size() == 7);
  }
  // Ending, it tells what it still held.
  REQUIRE(seen.size() == 8);
  CHECK(seen.back() == "1 more client turned away and not shown (at most 3 such lines per 10 s)");
}

TEST_CASE("notice limiter: nothing held back, nothing more said", "[control]") {
  std::vector<std::string> seen;
  {
    NoticeLimiter limit([&](const std::string& s) { seen.push_back(s); });
    limit("refused a");
    limit.flush();
  }
  CHECK(seen == std::vector<std::string>{"refused a"});
}

namespace {

std::set<long> thread_ids() {
  std::set<long> ids;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    ids.insert(std::stol(task.path().filename().string()));
  return ids;
}

/// A control listener on some free port, for the turn-away thread.
rdmabench::ControlListener turn_away_listener() {
  const int base = 41000 + static_cast<int>(::getpid() % 19000);
  for (int attempt = 0; attempt < 50; ++attempt) {
    try {
      return rdmabench::ControlListener(static_cast<std::uint16_t>(base + attempt * 11));
    } catch (const rdmabench::Error&) {
      // taken; try the next
    }
  }
  FAIL("no free TCP port for the control listener");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("turn-away: the busy server's thread leaves the CPU --cpu pinned the run to", "[control][host-proc]") {
  const auto allowed = rdmabench::allowed_cpus();
  if (allowed.size() < 2) {
    WARN("one CPU allowed: there is no other CPU to leave for");
    return;
  }
  cpu_set_t saved;
  REQUIRE(::sched_getaffinity(0, sizeof saved, &saved) == 0);
  cpu_set_t pinned;
  CPU_ZERO(&pinned);
  CPU_SET(allowed.front(), &pinned);
  REQUIRE(::sched_setaffinity(0, sizeof pinned, &pinned) == 0);  // as --cpu does

  auto listener = turn_away_listener();
  const auto before = thread_ids();
  bool left = false;
  {
    rdmabench::Server::TurnAway turn_away(listener, "busy", [](const std::string&) {});
    for (auto deadline = std::chrono::steady_clock::now() + 5s; !left && std::chrono::steady_clock::now() < deadline;) {
      for (const long id : thread_ids()) {
        if (before.count(id)) continue;
        cpu_set_t mask;
        if (::sched_getaffinity(static_cast<pid_t>(id), sizeof mask, &mask) == 0)
          left = !CPU_ISSET(allowed.front(), &mask);
      }
      if (!left) std::this_thread::sleep_for(10ms);
    }
  }
  ::sched_setaffinity(0, sizeof saved, &saved);
  CHECK(left);
}
