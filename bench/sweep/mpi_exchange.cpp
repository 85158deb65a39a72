#include "sweep/mpi_exchange.hpp"

#include <mpi.h>

#include <array>
#include <cstring>
#include <numeric>

namespace rdmabench::sweep_cli {

namespace {

/// Fixed-size so one MPI_Allgather of bytes carries it; longer names are cut
/// (a host name is at most 64 bytes on Linux, a device name 64).
struct WireRank {
  std::int32_t rank = 0;
  std::array<char, 256> host{};
  std::array<char, 64> device{};
  std::array<char, 64> address{};
  std::array<char, 256> address_error{};
};

template <std::size_t N>
void put(std::array<char, N>& field, const std::string& text) {
  std::strncpy(field.data(), text.c_str(), N - 1);
}

template <std::size_t N>
std::string get(const std::array<char, N>& field) {
  return std::string(field.data(), strnlen(field.data(), N));
}

}  // namespace

std::vector<RankInfo> allgather_ranks(const RankInfo& mine) {
  WireRank wire;
  wire.rank = mine.endpoint.rank;
  put(wire.host, mine.endpoint.host);
  put(wire.device, mine.endpoint.device);
  put(wire.address, mine.address);
  put(wire.address_error, mine.address_error);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<WireRank> all(static_cast<std::size_t>(size));
  MPI_Allgather(&wire, sizeof wire, MPI_BYTE, all.data(), sizeof wire, MPI_BYTE, MPI_COMM_WORLD);
  std::vector<RankInfo> ranks;
  for (const auto& w : all) {
    RankInfo info;
    info.endpoint = {w.rank, get(w.host), get(w.device), /*rail*/ 0};
    info.address = get(w.address);
    info.address_error = get(w.address_error);
    ranks.push_back(std::move(info));
  }
  return ranks;
}

std::vector<std::string> gather_to_root(const std::string& mine) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size());
  if (!lengths.empty()) std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  const int total = std::accumulate(lengths.begin(), lengths.end(), 0);
  std::string joined(rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  std::vector<std::string> texts;
  if (rank != 0) return texts;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    texts.push_back(joined.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return texts;
}

bool all_ok(bool mine) {
  int ok = mine ? 1 : 0, every = 0;
  MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return every == 1;
}

}  // namespace rdmabench::sweep_cli
