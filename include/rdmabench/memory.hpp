#pragma once
/// @file
/// Where benchmark buffers live. A MemoryProvider allocates and registers;
/// each side chooses its own (host today; CUDA device memory plugs in here),
/// so that host->device and device->host runs are explicit.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "rdmabench/resources.hpp"

namespace rdmabench {

/// An allocation that frees itself through the provider that made it.
class Buffer {
 public:
  using Release = void (*)(void* data, std::size_t size);
  Buffer() = default;
  Buffer(void* data, std::size_t size, Release release) : data_(data), size_(size), release_(release) {}
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(release_, other.release_);
    return *this;
  }
  ~Buffer() {
    if (data_) release_(data_, size_);
  }
  std::byte* data() const { return static_cast<std::byte*>(data_); }
  std::size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
  Release release_ = nullptr;
};

class MemoryProvider {
 public:
  virtual ~MemoryProvider() = default;
  /// "host", "hugepage": printed in reports.
  virtual std::string name() const = 0;
  /// Zero-filled, page-aligned memory of at least `bytes`.
  virtual Buffer allocate(std::size_t bytes) = 0;
  /// Registers `buffer` with exactly `access` (IBV_ACCESS_* flags).
  virtual MemoryRegion register_buffer(ibv_pd* pd, const Buffer& buffer, int access);
};

/// "host" or "hugepage" (2 MiB pages via MAP_HUGETLB). Errors list the valid
/// names.
std::unique_ptr<MemoryProvider> make_memory_provider(const std::string& name);

}  // namespace rdmabench
