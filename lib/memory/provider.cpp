// What every memory provider shares: registration by ibv_reg_mr and CPU copies.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "rdmabench/memory/memory.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

Registration MemoryProvider::register_buffer(ibv_pd* pd, const Buffer& buffer, int access) {
  MemoryRegion mr(ibv_reg_mr(pd, buffer.data(), buffer.size(), access));
  if (!mr)
    throw_system_error(fmt::format("ibv_reg_mr({} bytes of {} memory)", buffer.size(), name()),
                       errno, "ulimit -l may be too low for the buffer size (try ulimit -l unlimited)");
  return {std::move(mr), RegistrationPath::host};
}

void MemoryProvider::copy_in(const Buffer& buffer, std::span<const std::byte> from) {
  require(from.size() <= buffer.size(), "copy into a buffer smaller than the data");
  std::memcpy(buffer.data(), from.data(), from.size());
}

void MemoryProvider::copy_out(const Buffer& buffer, std::span<std::byte> to) {
  require(to.size() <= buffer.size(), "copy out of a buffer smaller than the data");
  std::memcpy(to.data(), buffer.data(), to.size());
}

}  // namespace rdmabench
