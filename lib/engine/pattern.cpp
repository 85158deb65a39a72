#include "rdmabench/engine/pattern.hpp"

#include <fmt/format.h>

namespace rdmabench {

std::uint8_t pattern_byte(std::uint64_t bytes, std::uint32_t pass, std::size_t offset) {
  // Multipliers coprime to 256 make neighbouring bytes, sizes and passes
  // differ; the offset's high bits are folded in so that large buffers do
  // not repeat every 256 bytes.
  const std::uint64_t x = offset * 131u + (offset >> 8) * 17u + pass * 101u + bytes * 7u + 1u;
  return static_cast<std::uint8_t>(x ^ (x >> 8));
}

void fill_pattern(std::span<std::byte> buffer, std::uint32_t pass) {
  for (std::size_t k = 0; k < buffer.size(); ++k)
    buffer[k] = std::byte{pattern_byte(buffer.size(), pass, k)};
}

std::optional<std::string> check_pattern(std::span<const std::byte> buffer, std::uint32_t pass) {
  for (std::size_t k = 0; k < buffer.size(); ++k) {
    const auto due = pattern_byte(buffer.size(), pass, k);
    const auto found = std::to_integer<std::uint8_t>(buffer[k]);
    if (found != due)
      return fmt::format("--validate: byte {} of the {}-byte message of pass {} is 0x{:02x}, "
                         "expected 0x{:02x}",
                         k, buffer.size(), pass, found, due);
  }
  return std::nullopt;
}

}  // namespace rdmabench
