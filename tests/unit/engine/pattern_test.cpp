// The --validate pattern: it must tell sizes, passes and offsets apart, and
// a checker must name the first wrong byte.
#include "catch2_compat.hpp"
#include <vector>

#include "rdmabench/engine/pattern.hpp"

using rdmabench::check_pattern;
using rdmabench::fill_pattern;
using rdmabench::pattern_byte;

TEST_CASE("pattern: a filled buffer checks clean, a corrupted one names the offset", "[pattern]") {
  std::vector<std::byte> buffer(4096);
  fill_pattern(buffer, 1);
  CHECK_FALSE(check_pattern(buffer, 1));
  buffer[1000] = std::byte{static_cast<unsigned char>(pattern_byte(4096, 1, 1000) ^ 0x40)};
  const auto problem = check_pattern(buffer, 1);
  REQUIRE(problem);
  CHECK_THAT(*problem, Catch::Contains("byte 1000 of the 4096-byte message of pass 1"));
}

TEST_CASE("pattern: another pass or size does not pass for this one", "[pattern]") {
  std::vector<std::byte> buffer(64);
  fill_pattern(buffer, 0);
  CHECK(check_pattern(buffer, 1));  // stale data from the previous pass
  std::vector<std::byte> longer(128);
  fill_pattern(longer, 0);
  CHECK(check_pattern(std::span<const std::byte>(longer).first(64), 0));  // other size
  std::vector<std::byte> zeros(64);
  CHECK(check_pattern(zeros, 0));
}

TEST_CASE("pattern: no short period inside a large buffer", "[pattern]") {
  // A buffer shifted by any period up to 4 KiB must not match itself.
  std::vector<std::byte> buffer(1 << 16);
  fill_pattern(buffer, 0);
  for (std::size_t shift : {1u, 2u, 256u, 512u, 4096u}) {
    std::size_t equal = 0;
    for (std::size_t k = shift; k < buffer.size(); ++k) equal += buffer[k] == buffer[k - shift];
    INFO("shift " << shift);
    CHECK(equal < buffer.size() / 16);
  }
}
