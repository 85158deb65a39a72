#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "cuda_memory.hpp"
#include "rdmabench/error.hpp"
#include "rdmabench/memory.hpp"

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

namespace {

constexpr std::size_t kHugePage = 2u << 20;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

/// mmap gives page-aligned, zero-filled memory, and works the same for
/// ordinary and huge pages.
Buffer map_anonymous(std::size_t bytes, std::size_t page, int extra_flags, const char* what) {
  const std::size_t length = round_up(std::max<std::size_t>(bytes, 1), page);
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | extra_flags, -1, 0);
  if (p == MAP_FAILED)
    throw_system_error(fmt::format("mmap of {} bytes of {} memory", length, what), errno,
                       extra_flags ? "reserve huge pages first: echo N > /proc/sys/vm/nr_hugepages"
                                   : "");
  return Buffer(p, length, [](void* data, std::size_t size) { ::munmap(data, size); });
}

class HostMemory final : public MemoryProvider {
 public:
  std::string name() const override { return "host"; }
  Buffer allocate(std::size_t bytes) override {
    return map_anonymous(bytes, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), 0, "host");
  }
};

class HugePageMemory final : public MemoryProvider {
 public:
  std::string name() const override { return "hugepage"; }
  Buffer allocate(std::size_t bytes) override {
    return map_anonymous(bytes, kHugePage, MAP_HUGETLB, "huge-page");
  }
};

}  // namespace

std::unique_ptr<MemoryProvider> make_memory_provider(const MemoryChoice& choice) {
  switch (choice.kind) {
    case MemoryChoice::Kind::host: return std::make_unique<HostMemory>();
    case MemoryChoice::Kind::hugepage: return std::make_unique<HugePageMemory>();
    case MemoryChoice::Kind::cuda:
    case MemoryChoice::Kind::cuda_host: return detail::make_cuda_memory(choice);
  }
  throw Error("unknown memory kind");
}

}  // namespace rdmabench
