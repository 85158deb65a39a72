#include "system/pause_points.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace rdmabench::detail {

namespace {

void stop_here(const char* phase) {
  if (const char* file = std::getenv("RDMABENCH_PAUSE_FILE")) {
    const std::string partial = std::string(file) + ".partial";
    std::ofstream(partial) << phase << ' ' << ::getpid() << '\n';
    std::rename(partial.c_str(), file);
  }
  ::raise(SIGSTOP);
}

}  // namespace

void pause_point(const char* phase) {
  static const char* const wanted = std::getenv("RDMABENCH_PAUSE_AT");
  if (!wanted || std::strcmp(wanted, phase) != 0) return;
  if (std::strcmp(phase, "mid-run") != 0) return stop_here(phase);
  const char* delay = std::getenv("RDMABENCH_PAUSE_DELAY_MS");
  const auto ms = std::chrono::milliseconds(delay ? std::atol(delay) : 500);
  std::thread([phase, ms] {
    std::this_thread::sleep_for(ms);
    stop_here(phase);
  }).detach();
}

}  // namespace rdmabench::detail
