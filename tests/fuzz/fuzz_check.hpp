#pragma once
// What the fuzz targets share: a check that never compiles out and aborts
// with a message libFuzzer shows next to the reproducer, and the round trip
// every decoded message must survive.

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "rdmabench/control/wire.hpp"

namespace rdmabench::fuzz {

[[noreturn]] inline void fail(const char* file, int line, const char* condition,
                              const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s%s%s\n", file, line, condition,
               detail.empty() ? "" : ": ", detail.c_str());
  std::abort();
}

#define RDMABENCH_FUZZ_CHECK(condition, detail) \
  ((condition) ? (void)0 : ::rdmabench::fuzz::fail(__FILE__, __LINE__, #condition, (detail)))

/// A message that decoded must encode (the encoder accepts everything the
/// decoder lets through), and its frame must decode to the same message
/// whose encoding is the same bytes again. Bytes are compared, not values,
/// where a value holds a NaN (NaN != NaN, yet it travels bit for bit).
inline void check_round_trip(const wire::Message& message) {
  std::vector<std::uint8_t> frame;
  try {
    frame = wire::encode(message);
  } catch (const std::exception& e) {
    fail(__FILE__, __LINE__, "encode(decoded message)", e.what());
  }
  wire::Message again;
  try {
    again = wire::decode(frame);
  } catch (const std::exception& e) {
    fail(__FILE__, __LINE__, "decode(encode(decoded message))", e.what());
  }
  RDMABENCH_FUZZ_CHECK(again.index() == message.index(), wire::type_name(again));
  RDMABENCH_FUZZ_CHECK(wire::encode(again) == frame, wire::type_name(message));
  // A message without NaN equals itself; then the value must survive too.
  if (message == message) RDMABENCH_FUZZ_CHECK(again == message, wire::type_name(message));
}

}  // namespace rdmabench::fuzz
