#include "fault_cells_side_by_side.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

namespace lab::faults {

namespace {

using Clock = std::chrono::steady_clock;

// Longer than any cell's bounded waits added up (a 60 s pause, a 60 s run,
// the server's 10 s), so only a cell that hangs meets it.
constexpr auto kCellLimit = std::chrono::seconds(300);

/// An Outcome through a pipe: verdict, seconds, then the two texts, each
/// with its length first.
std::string encode(const Outcome& o) {
  std::ostringstream out;
  out << static_cast<int>(o.verdict) << ' ' << o.seconds << ' ' << o.expected.size() << ' ' << o.expected << ' '
      << o.observed.size() << ' ' << o.observed;
  return out.str();
}

std::optional<Outcome> decode(const std::string& text) {
  std::istringstream in(text);
  Outcome o;
  int verdict = -1;
  std::size_t length = 0;
  if (!(in >> verdict >> o.seconds >> length) || verdict < 0 || verdict > 2) return std::nullopt;
  o.verdict = static_cast<Outcome::Verdict>(verdict);
  in.get();
  o.expected.resize(length);
  if (!in.read(o.expected.data(), static_cast<std::streamsize>(length)) || !(in >> length)) return std::nullopt;
  in.get();
  o.observed.resize(length);
  if (!in.read(o.observed.data(), static_cast<std::streamsize>(length))) return std::nullopt;
  return o;
}

Outcome cell_in_child(const Cell& cell) {
  try {
    return run_cell(cell);
  } catch (...) {  // a failed REQUIRE inside the cell: Catch printed it
    Outcome o;
    o.observed = "the cell could not be run (see the test log)";
    return o;
  }
}

struct Child {
  std::size_t index;
  int slot;
  int pipe;
  Clock::time_point started;
};

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  return text;
}

}  // namespace

int cells_at_once() {
  if (const char* given = std::getenv("RDMABENCH_FAULT_MATRIX_CELLS"); given && std::atoi(given) > 0)
    return std::atoi(given);
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::vector<Outcome> run_cells_side_by_side(const std::vector<Cell>& cells, int at_once,
                                            const std::function<void(std::size_t, const Outcome&)>& finished) {
  std::vector<Outcome> outcomes(cells.size());
  std::map<pid_t, Child> running;
  std::vector<bool> slot_taken(static_cast<std::size_t>(at_once), false);

  const auto start = [&](std::size_t index) {
    int slot = 0;
    while (slot_taken[static_cast<std::size_t>(slot)]) ++slot;
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    std::cout.flush();  // else the child would write the parent's buffered text again
    std::cerr.flush();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::setpgid(0, 0);  // the parent can then kill all the cell started at once
      ::close(fds[0]);
      use_port_slot(slot, at_once);
      const std::string result = encode(cell_in_child(cells[index]));
      ssize_t ignored = ::write(fds[1], result.data(), result.size());  // < PIPE_BUF: never blocks
      (void)ignored;
      std::cout.flush();
      std::cerr.flush();
      ::_exit(0);  // not exit(): Catch's end-of-run report belongs to the parent
    }
    ::setpgid(pid, pid);
    ::close(fds[1]);
    slot_taken[static_cast<std::size_t>(slot)] = true;
    running.emplace(pid, Child{index, slot, fds[0], Clock::now()});
  };

  const auto wait_for_one = [&] {
    for (;;) {
      for (auto it = running.begin(); it != running.end(); ++it) {
        const auto& [pid, child] = *it;
        int status = 0;
        const bool overdue = Clock::now() - child.started > kCellLimit;
        if (overdue) ::kill(-pid, SIGKILL);
        if (::waitpid(pid, &status, overdue ? 0 : WNOHANG) != pid) continue;
        const auto outcome = decode(read_all(child.pipe));
        Outcome& o = outcomes[child.index];
        if (outcome) {
          o = *outcome;
        } else {
          o.observed = overdue ? "the cell did not end within " + std::to_string(kCellLimit.count()) + " s"
                               : "the cell's process ended without an outcome (status " + std::to_string(status) + ")";
        }
        ::kill(-pid, SIGKILL);  // anything of the cell's that outlived it
        ::close(child.pipe);
        slot_taken[static_cast<std::size_t>(child.slot)] = false;
        const std::size_t index = child.index;
        running.erase(it);
        finished(index, o);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };

  for (std::size_t i = 0; i < cells.size(); ++i) {
    while (running.size() >= static_cast<std::size_t>(at_once)) wait_for_one();
    start(i);
  }
  while (!running.empty()) wait_for_one();
  return outcomes;
}

}  // namespace lab::faults
