#pragma once
/// @file
/// The data pattern of --validate: different for every message size and
/// pass, so a stale buffer from an earlier message never passes for a new one.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace rdmabench {

/// The byte at `offset` of the message of `bytes` bytes in pass `pass`.
std::uint8_t pattern_byte(std::uint64_t bytes, std::uint32_t pass, std::size_t offset);

/// Fills `buffer` with the pattern of (bytes = buffer.size(), pass).
void fill_pattern(std::span<std::byte> buffer, std::uint32_t pass);

/// nullopt if `buffer` holds the pattern of (buffer.size(), pass), else a
/// message naming the first wrong offset, what was found and what was due.
std::optional<std::string> check_pattern(std::span<const std::byte> buffer, std::uint32_t pass);

}  // namespace rdmabench
