#pragma once
// What a rank knows about its own end before any pair runs: its device,
// port, address and GID, the port's rate, firmware and NUMA node, and the
// software it runs. Read from sysfs and the verbs; MPI-free.

#include <optional>
#include <string>
#include <vector>

#include "rdmabench/memory/memory.hpp"
#include "rdmabench/sweep/record.hpp"
#include "rdmabench/topology/port_rate.hpp"  // parse_port_rate, which the sweep reads the rate with
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench::sweep_cli {

/// This rank's context. `address` empty: the device's interface's first
/// IPv4 address (none for InfiniBand without IPoIB, which then needs no
/// address). Throws rdmabench::Error naming the device when it cannot be
/// opened or `address` is not one of its GIDs.
sweep::EndpointContext describe_endpoint(const sweep::Endpoint& endpoint, const std::string& address);

/// The GID index whose GID is `address` (a RoCEv2 GID of an IPv4 or IPv6
/// address); empty when none is.
std::optional<std::uint32_t> gid_index_of_address(const PortAttributes& port, const std::string& address);

/// The host's RDMA devices, by name.
std::vector<std::string> host_rdma_devices();

/// How the GPU of `memory` reaches `device` ("PIX", "SYS", ...), for a
/// choice by PCI address; empty for host memory; for a CUDA ordinal, says
/// that its PCI place is only known once a run opens it.
std::string gpu_relation_of(const MemoryChoice& memory, const std::string& device);

/// --mem cuda:auto: "--mem cuda --cuda-bus-id ADDR" for the NVIDIA GPU
/// closest to `device` by PCI topology; throws rdmabench::Error when the
/// host has none. Other --mem values pass through unchanged.
std::vector<std::string> resolve_auto_gpu(std::vector<std::string> pair_args, const std::string& device);

}  // namespace rdmabench::sweep_cli
