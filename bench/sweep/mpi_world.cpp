#include "sweep/mpi_world.hpp"

#include "rdmabench/verbs/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace rdmabench::sweep_cli {

namespace {
constexpr int kCoordinationTag = 1;

/// Polls `request` until it completes or `seconds` pass. A request left
/// unfinished is never waited for again: the job is ended then.
bool completes_within(MPI_Request& request, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}
}  // namespace

World join_world() {
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &w.local_rank);
  MPI_Comm_free(&local);
  MPI_Comm_dup(MPI_COMM_WORLD, &w.coordination);
  MPI_Comm_dup(MPI_COMM_WORLD, &w.pairs);
  int* upper = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &upper, &found);
  if (found && upper) w.tag_upper_bound = *upper;
  return w;
}

std::vector<std::string> allgather_text(const World& world, const std::string& mine, double seconds) {
  constexpr std::size_t kSlot = 16384;
  if (mine.size() >= kSlot) throw Error(fmt::format("a rank's description is {} bytes, more than {}", mine.size(), kSlot));
  std::vector<char> slot(kSlot, '\0');
  std::copy(mine.begin(), mine.end(), slot.begin());
  std::vector<char> all(kSlot * static_cast<std::size_t>(world.size));
  MPI_Request request;
  MPI_Iallgather(slot.data(), kSlot, MPI_CHAR, all.data(), kSlot, MPI_CHAR, world.coordination, &request);
  if (!completes_within(request, seconds))
    throw Error(fmt::format("not every rank joined the sweep within {:.0f} s (one is stopped or stuck "
                            "opening its device)", seconds));
  std::vector<std::string> texts;
  for (int r = 0; r < world.size; ++r) {
    const char* begin = all.data() + kSlot * static_cast<std::size_t>(r);
    texts.emplace_back(begin, strnlen(begin, kSlot));
  }
  return texts;
}

bool all_reach_the_end(const World& world, double seconds) {
  MPI_Request request;
  MPI_Ibarrier(world.coordination, &request);
  return completes_within(request, seconds);
}

void keep_for_mpi(std::vector<std::uint8_t> bytes) {
  static std::mutex lock;
  static std::list<std::vector<std::uint8_t>> kept;
  const std::lock_guard guard(lock);
  kept.push_back(std::move(bytes));
}

Mailbox::~Mailbox() {
  // Texts nobody took (their reader stopped): MPI may still read them, so
  // release the requests and keep the bytes for the life of the process.
  for (auto& pending : sending_) {
    int done = 0;
    MPI_Test(&pending.request, &done, MPI_STATUS_IGNORE);
    if (done) continue;
    MPI_Request_free(&pending.request);
    keep_for_mpi(std::move(pending.bytes));
  }
}

void Mailbox::post(int to, std::string text) {
  for (auto it = sending_.begin(); it != sending_.end();) {
    int done = 0;
    MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    it = done ? sending_.erase(it) : std::next(it);
  }
  auto& pending = sending_.emplace_back();
  pending.bytes.assign(text.begin(), text.end());
  MPI_Isend(pending.bytes.data(), static_cast<int>(pending.bytes.size()), MPI_CHAR, to, kCoordinationTag,
            world_.coordination, &pending.request);
}

std::optional<Letter> Mailbox::poll() {
  int arrived = 0;
  MPI_Message handle;
  MPI_Status status;
  MPI_Improbe(MPI_ANY_SOURCE, kCoordinationTag, world_.coordination, &arrived, &handle, &status);
  if (!arrived) return std::nullopt;
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  Letter letter{status.MPI_SOURCE, std::string(static_cast<std::size_t>(std::max(length, 0)), '\0')};
  MPI_Mrecv(letter.text.data(), length, MPI_CHAR, &handle, MPI_STATUS_IGNORE);
  return letter;
}

void Mailbox::drain(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!sending_.empty() && std::chrono::steady_clock::now() < until) {
    for (auto it = sending_.begin(); it != sending_.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? sending_.erase(it) : std::next(it);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace rdmabench::sweep_cli
