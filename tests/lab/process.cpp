#include "process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "catch2_compat.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace lab {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "rdmabench-lab-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

Process::Process(std::vector<std::string> argv, std::vector<std::string> extra_env)
    : argv_(std::move(argv)) {
  std::string pattern = (std::filesystem::temp_directory_path() / "rdmabench-proc-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, (dir_ / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir_ / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<char*> env;
  for (auto& e : extra_env) env.push_back(e.data());
  for (char** e = environ; *e; ++e) env.push_back(*e);  // a name given twice: the first wins
  env.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv_[0]);
}

Process::~Process() {
  if (running()) {
    kill(SIGKILL);
    wait_for(std::chrono::seconds(5));
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::optional<int> Process::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!status_) {
    int raw = 0;
    const pid_t r = ::waitpid(pid_, &raw, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
      check_sanitizer_report();
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status_;
}

bool Process::running() { return !wait_for(std::chrono::milliseconds(0)); }

bool Process::stopped() const {
  // /proc/PID/stat: "PID (comm) STATE ..."; comm may hold spaces, not ')'.
  const std::string stat = read_file("/proc/" + std::to_string(pid_) + "/stat");
  const auto end = stat.rfind(')');
  return !status_ && end != std::string::npos && end + 2 < stat.size() && stat[end + 2] == 'T';
}

void Process::kill(int signal) {
  if (!status_) ::kill(pid_, signal);
}

std::string Process::out() const { return read_file(dir_ / "out"); }
std::string Process::err() const { return read_file(dir_ / "err"); }

bool Process::wait_for_output(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (out().find(text) != std::string::npos || err().find(text) != std::string::npos) return true;
    if (std::chrono::steady_clock::now() >= deadline || !running()) {
      return out().find(text) != std::string::npos || err().find(text) != std::string::npos;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// In a sanitizer build (docs/hardening.md) a report aborts the child. That
// fails the test here, whatever exit status the test expects (a refused run
// exits non-zero too), and shows the report even where the test took its
// INFO(describe()) while the child was still running.
void Process::check_sanitizer_report() const {
  const std::string e = err();
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", ": runtime error: "}) {
    if (e.find(marker) != std::string::npos) {
      FAIL_CHECK("a sanitizer reported in a child process\n" << describe());
      return;
    }
  }
}

std::string Process::describe() const {
  std::string s = "command:";
  for (const auto& a : argv_) s += " " + a;
  s += status_ ? "\nexit status: " + std::to_string(*status_) : "\n(still running)";
  return s + "\n--- stdout ---\n" + out() + "--- stderr ---\n" + err();
}

}  // namespace lab
