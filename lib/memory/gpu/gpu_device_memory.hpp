#pragma once
// Device memory of one GPU, whatever its maker: what the CUDA and ROCm
// plug-ins share. The CPU cannot touch it; it is registered for GPUDirect
// RDMA by dma-buf (the range exported by the runtime, imported with
// ibv_reg_dmabuf_mr) or by peer memory (ibv_reg_mr on the device pointer,
// which the NIC driver hands to the GPU driver's peer-memory client), in the
// order of gpu_registration.hpp; copies are the runtime's, bounds-checked
// here. Each vendor supplies the runtime calls.

#include <cstdint>
#include <string>

#include "memory/gpu/gpu_registration.hpp"
#include "rdmabench/memory/memory.hpp"

namespace rdmabench::gpu {

/// GPUDirect RDMA maps GPU memory in 64 KiB pages; whole pages keep a
/// buffer from sharing one with another allocation.
constexpr std::size_t kGpuPage = 64u << 10;

/// `n` (at least 1) rounded up to a multiple of `to`.
std::size_t round_up(std::size_t n, std::size_t to);

/// "0000:3b:00.0", as sysfs names a PCI function, from what CUDA and HIP
/// print ("00000000:3B:00.0", "0000:3b:00.0"); empty if `bus_id` is none.
std::string sysfs_pci_address(const char* bus_id);

/// A dma-buf file descriptor (the caller closes it), or why there is none.
struct DmabufExport {
  int fd = -1;
  std::string failure;
};

class GpuDeviceMemory : public MemoryProvider {
 public:
  /// `description`: "NVIDIA H200, PCI 0000:3b:00.0"; `pci_address` as sysfs
  /// names the GPU (the topology report finds it by that).
  GpuDeviceMemory(MemoryChoice choice, const RegistrationHints& hints, std::string description,
                  std::string pci_address);

  std::string name() const final { return choice_.name(); }
  std::string device_description() const final { return description_; }
  std::string pci_address() const final { return pci_address_; }
  bool cpu_accessible() const final { return false; }
  Registration register_buffer(ibv_pd* pd, const Buffer& buffer, int access) final;
  void copy_in(const Buffer& buffer, std::span<const std::byte> from) final;
  void copy_out(const Buffer& buffer, std::span<std::byte> to) final;

  /// The runtime behind this memory, for tools/gpu-check: "CUDA driver
  /// libcuda.so.1", and what a stand-in says it is.
  virtual std::string runtime() const = 0;
  /// Exports [start, start + length) of device memory (host-page aligned)
  /// as a dma-buf.
  virtual DmabufExport export_dmabuf(std::uintptr_t start, std::size_t length) const = 0;
  /// What this GPU's registration paths need, for messages.
  const RegistrationHints& registration_hints() const { return hints_; }

 protected:
  /// The runtime's copies (cuMemcpyHtoD, hipMemcpy); sizes already checked.
  virtual void copy_to_device(std::byte* device, const std::byte* host, std::size_t bytes) = 0;
  virtual void copy_from_device(std::byte* host, const std::byte* device, std::size_t bytes) = 0;

 private:
  MemoryChoice choice_;
  const RegistrationHints& hints_;
  std::string description_;
  std::string pci_address_;
  GdrMode gdr_;  ///< becomes the path that worked (see register_gpu_memory)
};

}  // namespace rdmabench::gpu
