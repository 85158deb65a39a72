#pragma once
// A child process for lab tests: stdout and stderr go to files, waits are
// bounded, and a process still running at the end of a test is killed.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lab {

class Process {
 public:
  /// Starts `argv` (argv[0] is a path) with this process's environment plus
  /// `extra_env` ("NAME=value" each); output files live in a fresh temp dir.
  explicit Process(std::vector<std::string> argv, std::vector<std::string> extra_env = {});
  Process(Process&&) = delete;
  ~Process();

  /// Exit status (128 + signal for a signal), or nullopt if still running
  /// after `timeout`.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  bool running();
  /// Stopped by a signal (SIGSTOP), as /proc says.
  bool stopped() const;
  void kill(int signal);

  std::string out() const;  ///< everything written to stdout so far
  std::string err() const;
  /// Waits until stdout or stderr contains `text`; false after `timeout`.
  bool wait_for_output(const std::string& text, std::chrono::milliseconds timeout);
  std::string describe() const;  ///< command line and output, for failure messages

 private:
  void check_sanitizer_report() const;
  std::vector<std::string> argv_;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

/// A fresh temporary directory, removed at exit of the scope.
struct TempDir {
  TempDir();
  ~TempDir();
  std::filesystem::path path;
};

std::string read_file(const std::filesystem::path& path);

}  // namespace lab
