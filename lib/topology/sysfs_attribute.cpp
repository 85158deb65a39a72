#include "topology/sysfs_attribute.hpp"

#include <fstream>
#include <iterator>

namespace rdmabench::detail {

std::optional<std::string> read_attribute(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  line.erase(line.find_last_not_of(" \t\r\n") + 1);
  return line;
}

std::vector<std::uint8_t> read_binary_attribute(const std::filesystem::path& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes;
  if (!in) return bytes;
  // The kernel gives a non-root reader of `config` its first 64 bytes only:
  // a short read is an answer, not an error.
  for (std::istreambuf_iterator<char> it(in), end; it != end && bytes.size() < limit; ++it)
    bytes.push_back(static_cast<std::uint8_t>(*it));
  return bytes;
}

}  // namespace rdmabench::detail
