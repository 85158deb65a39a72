// Host memory: ordinary pages and huge pages, both by anonymous mmap.
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

#include "memory/host_memory.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

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

std::unique_ptr<MemoryProvider> make_host_memory(bool huge_pages) {
  if (huge_pages) return std::make_unique<HugePageMemory>();
  return std::make_unique<HostMemory>();
}

}  // namespace rdmabench::detail
