#include "sweep/results_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>

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

std::uintmax_t cut_last_line(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_system_error("cannot read " + path.string(), errno);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto last_char = text.find_last_not_of(" \t\r\n");
  if (last_char == std::string::npos) return 0;
  const auto line_break = text.rfind('\n', last_char);
  const std::uintmax_t keep = line_break == std::string::npos ? 0 : line_break + 1;
  std::error_code failed;
  std::filesystem::resize_file(path, keep, failed);
  if (failed)
    throw Error("cannot cut the torn last line from " + path.string() + ": " + failed.message(),
                "the sweep stops: its next record would join the torn line");
  return text.size() - keep;
}

}  // namespace rdmabench::sweep_cli
