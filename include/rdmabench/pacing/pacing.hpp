#pragma once
/// @file
/// An open-loop run's pacing as the user asked for it (--rate, --burst):
/// side-local, the client's alone, since only the client keeps a schedule.
/// A server that must take part (send and write latency echo each message)
/// learns that much from the test parameter `open_loop`, not the rate.

#include <cstdint>

#include "rdmabench/pacing/rate.hpp"

namespace rdmabench {

struct Pacing {
  Rate rate;                ///< messages per second for latency tests
  std::uint64_t burst = 1;  ///< most messages one catch-up may release at once
};

}  // namespace rdmabench
