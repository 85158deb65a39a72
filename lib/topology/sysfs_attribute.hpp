#pragma once
// Reading sysfs attributes the way every topology file needs: never
// throwing, an unreadable file is simply not there.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench::detail {

/// The first line of a sysfs attribute without trailing blanks, or empty
/// when it cannot be read.
std::optional<std::string> read_attribute(const std::filesystem::path& path);

/// Up to `limit` bytes of a binary attribute (a PCI function's `config`);
/// as many as the kernel lets this reader see, none when it cannot open it.
std::vector<std::uint8_t> read_binary_attribute(const std::filesystem::path& path, std::size_t limit);

}  // namespace rdmabench::detail
