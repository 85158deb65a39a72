#pragma once
// results.jsonl, appended so that a crash or a full disk costs at most the
// line being written: every write checked, and the file synced to disk
// after each round's records (so --resume finds them).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rdmabench::sweep_cli {

class ResultsFile {
 public:
  /// Opens `path` for appending (created if missing); throws an Error naming it.
  explicit ResultsFile(std::filesystem::path path);
  ~ResultsFile();
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;

  /// Appends one line per entry and syncs; a failed write or sync throws an
  /// Error naming the file and the cause (ENOSPC: the disk is full).
  void append(const std::vector<std::string>& lines);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

/// Removes the last line of `path` that is not blank, with the blank text
/// after it, and returns how many bytes went: --resume's cut for a torn last
/// line (sweep::read_records), so that the next record starts a line of its
/// own instead of joining the fragment into one line no JSON reader takes.
std::uintmax_t cut_last_line(const std::filesystem::path& path);

}  // namespace rdmabench::sweep_cli
