#pragma once
/// @file
/// Where benchmark buffers live. A MemoryProvider allocates, registers and
/// (for --validate) copies patterns in and out; each side chooses its own
/// (host, huge pages, CUDA device or pinned host memory, ROCm device
/// memory), so that host->device and device->host runs are explicit.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "rdmabench/verbs/resources.hpp"

namespace rdmabench {

/// An allocation that frees itself through the provider that made it. For
/// device memory, data() is the device address (unified addressing keeps it
/// distinct from host addresses): fine for work requests, not for the CPU.
class Buffer {
 public:
  using Release = std::function<void(void* data, std::size_t size)>;
  Buffer() = default;
  Buffer(void* data, std::size_t size, Release release)
      : data_(data), size_(size), release_(std::move(release)) {}
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
  Release release_;
};

/// How GPU memory is registered with the NIC (--gdr).
enum class GdrMode {
  automatic,  ///< dma-buf first, then peer memory
  dmabuf,     ///< only the runtime's dma-buf export (cu/hipMemGetHandleForAddressRange) + ibv_reg_dmabuf_mr
  peermem,    ///< only ibv_reg_mr on the device pointer (nvidia-peermem, amdgpu's peer-memory client)
};

/// The path a memory region was registered by; reported in the header/JSON.
enum class RegistrationPath { host, dmabuf, peermem };
std::string to_string(RegistrationPath path);

/// What one side asked for with --mem, --cuda-bus-id and --gdr, parsed but
/// not yet acted on (no driver is loaded to parse it).
struct MemoryChoice {
  enum class Kind { host, hugepage, cuda, cuda_host, rocm };
  Kind kind = Kind::host;
  int gpu_device = 0;       ///< ordinal of cuda:N / cuda-host:N / rocm:N
  std::string cuda_bus_id;  ///< set: the CUDA GPU at this PCI address instead of the ordinal
  GdrMode gdr = GdrMode::automatic;

  bool is_cuda() const { return kind == Kind::cuda || kind == Kind::cuda_host; }
  /// GPU device memory (cuda:N, rocm:N): registered by --gdr's paths.
  bool is_gpu_device() const { return kind == Kind::cuda || kind == Kind::rocm; }
  /// "host", "hugepage", "cuda:0", "cuda-host:1", "cuda:0000:3b:00.0", "rocm:0".
  std::string name() const;
};

/// "host", "hugepage", "cuda:N", "cuda-host:N", "rocm:N" ("cuda" alone is
/// cuda:0, "rocm" rocm:0).
/// Errors name the text and list the valid forms.
MemoryChoice parse_memory_choice(const std::string& text);

/// "3b:00.0" or "0000:3b:00.0" (hex): true if `text` is a PCI address.
bool is_pci_bus_id(const std::string& text);

/// A registered buffer and how it was registered.
struct Registration {
  MemoryRegion mr;
  RegistrationPath path = RegistrationPath::host;
};

class MemoryProvider {
 public:
  virtual ~MemoryProvider() = default;
  /// "host", "hugepage", "cuda:0": printed in reports and sent to the peer.
  virtual std::string name() const = 0;
  /// The device behind the memory ("NVIDIA H200, PCI 0000:3b:00.0"); empty
  /// for host memory.
  virtual std::string device_description() const { return {}; }
  /// The GPU's PCI address ("0000:3b:00.0") for the topology report; empty
  /// for host memory.
  virtual std::string pci_address() const { return {}; }
  /// False for GPU memory: loops that poll a buffer byte cannot use it.
  virtual bool cpu_accessible() const { return true; }
  /// Zero-filled, page-aligned memory of at least `bytes`.
  virtual Buffer allocate(std::size_t bytes) = 0;
  /// Registers `buffer` with exactly `access` (IBV_ACCESS_* flags).
  virtual Registration register_buffer(ibv_pd* pd, const Buffer& buffer, int access);
  /// Copies `from` to the start of `buffer` (device copies for GPU memory).
  virtual void copy_in(const Buffer& buffer, std::span<const std::byte> from);
  /// Copies the start of `buffer` into `to`.
  virtual void copy_out(const Buffer& buffer, std::span<std::byte> to);
};

/// The provider for `choice`. GPU kinds load the CUDA driver or the HIP
/// runtime and check the device here, so that a missing driver or GPU is reported before any
/// connection is made.
std::unique_ptr<MemoryProvider> make_memory_provider(const MemoryChoice& choice);

}  // namespace rdmabench
