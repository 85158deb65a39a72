#pragma once
/// @file
/// An open-loop run's pacing as the user asked for it (--rate, --burst):
/// side-local, the client's alone, because the tests that take it so far
/// (read and atomic latency) have a server that takes no part in the loop.

#include <cstdint>

#include "rdmabench/engine/rate.hpp"

namespace rdmabench {

struct Pacing {
  Rate rate;                ///< messages per second for latency tests
  std::uint64_t burst = 1;  ///< most messages one catch-up may release at once
};

}  // namespace rdmabench
