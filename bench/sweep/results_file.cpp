#include "sweep/results_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench::sweep_cli {

ResultsFile::ResultsFile(std::filesystem::path path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_system_error("cannot write " + path_.string(), errno);
}

ResultsFile::~ResultsFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ResultsFile::append(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + '\n';
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_system_error("writing " + path_.string(), errno, "the sweep stops: its records would be lost");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0) throw_system_error("syncing " + path_.string(), errno, "the sweep stops: its records would be lost");
}

}  // namespace rdmabench::sweep_cli
