#pragma once
// How a paced bandwidth run shares the messages its pacer releases among the
// -q queue pairs: one at a time, in turn, so that every QP carries an equal
// part of the rate, as the unpaced loop gives each an equal part of the
// fabric. A QP whose queue is full (or that reached its target) is passed
// over, and its turn goes to the next; the schedule is not held back for it.
#include <cstddef>
#include <cstdint>
#include <span>

namespace rdmabench::detail {

/// Hands out up to `due` messages, one to each lane in turn, starting at
/// lane `next`, never more to lane i than `room[i]`. Writes each lane's
/// share to `share` (sized as `room`) and moves `next` past the last lane
/// served, so that the next call starts with the one after it: a release of
/// one message a turn still goes round all lanes. Returns how many were
/// handed out: `due`, or fewer when every lane is full.
inline std::uint64_t spread_round_robin(std::uint64_t due, std::span<const std::uint64_t> room,
                                        std::span<std::uint64_t> share, std::size_t& next) {
  const std::size_t lanes = room.size();
  for (std::size_t i = 0; i < lanes; ++i) share[i] = 0;
  if (lanes == 0) return 0;
  if (next >= lanes) next = 0;
  std::uint64_t given = 0;
  // Lanes passed over in a row: once all are, every queue is full.
  std::size_t full_in_a_row = 0;
  while (given < due && full_in_a_row < lanes) {
    if (share[next] < room[next]) {
      ++share[next];
      ++given;
      full_in_a_row = 0;
    } else {
      ++full_in_a_row;
    }
    next = next + 1 == lanes ? 0 : next + 1;
  }
  return given;
}

}  // namespace rdmabench::detail
