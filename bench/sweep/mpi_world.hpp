#pragma once
// The sweep's ranks as MPI gives them, and the sweep's coordination
// messages between rank 0 (the conductor) and the others: short JSON texts
// sent without blocking and polled for, so no wait on a stopped or dead rank
// is ever unbounded. MPI is never called from a timed loop: these run on
// each rank's main thread while its pairs' threads measure.

#include <mpi.h>

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench::sweep_cli {

struct World {
  int rank = 0;
  int size = 1;
  int local_rank = 0;       ///< position among the ranks of this host
  MPI_Comm coordination = MPI_COMM_NULL;  ///< rank 0's orders and the others' reports
  MPI_Comm pairs = MPI_COMM_NULL;         ///< the pairs' control paths (MpiPeer)
  int tag_upper_bound = 32767;
};

/// After MPI_Init_thread: ranks, the host-local rank, and the two
/// communicators (duplicates, so nothing else's messages can match ours).
World join_world();

/// Every rank's text (at most 16 KiB), in rank order. Waits at most
/// `seconds` for every rank, then throws rdmabench::Error.
std::vector<std::string> allgather_text(const World& world, const std::string& mine, double seconds);

/// A barrier of every rank before MPI_Finalize, which waits for them all
/// (Open MPI's is collective) and would hold a rank forever when another is
/// stopped after its last round. False when some rank did not come within
/// `seconds`: the caller then ends the job (MPI_Abort) instead.
bool all_reach_the_end(const World& world, double seconds);

/// Keeps the bytes of a send whose request was released unfinished (its
/// reader stopped) until the process ends: MPI may still read them.
void keep_for_mpi(std::vector<std::uint8_t> bytes);

/// A text from another rank.
struct Letter {
  int from = 0;
  std::string text;
};

/// Sends and receives coordination texts; a send never waits for its reader.
class Mailbox {
 public:
  explicit Mailbox(const World& world) : world_(world) {}
  ~Mailbox();
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  void post(int to, std::string text);
  /// The next text that has arrived from anyone, without waiting.
  std::optional<Letter> poll();
  /// Waits up to `seconds` for every posted text to be taken.
  void drain(double seconds);

 private:
  struct Pending {
    std::vector<std::uint8_t> bytes;  ///< moved, never copied: MPI points into it
    MPI_Request request = MPI_REQUEST_NULL;
  };
  const World& world_;
  std::list<Pending> sending_;
};

}  // namespace rdmabench::sweep_cli
