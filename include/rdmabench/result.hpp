#pragma once
/// @file
/// Plain results of a run: what the reporters print. No formatting here.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rdmabench/cpu_usage.hpp"
#include "rdmabench/stats.hpp"

namespace rdmabench {

/// Bandwidth over the timed iterations. MB are 10^6 bytes.
struct BandwidthFigures {
  double seconds = 0;
  double peak_mb_per_s = 0;     ///< best window of tx-depth messages
  double average_mb_per_s = 0;  ///< all timed bytes / all timed seconds
  double message_rate_mpps = 0;
};

struct SizeResult {
  std::uint64_t bytes = 0;
  std::uint64_t iterations = 0;  ///< timed iterations (warmup excluded)
  std::uint32_t warmup = 0;      ///< untimed iterations run before them
  std::optional<LatencySummary> latency;
  std::vector<double> latency_samples_us;  ///< every sample behind `latency`
  std::optional<BandwidthFigures> bandwidth;
  /// With --cpu-util: each side's CPU over this size's loop (warmup
  /// included; bytes counted the same way). The server's reaches the client.
  std::optional<CpuUsage> cpu_client;
  std::optional<CpuUsage> cpu_server;
  bool validated = false;  ///< --validate checked every byte of this size's untimed messages
};

/// Everything a reader needs to interpret the figures.
struct RunContext {
  std::string test;         ///< "write_lat"
  std::string title;        ///< "RDMA Write Latency Test"
  std::string role;         ///< "server" / "client"
  std::string version;
  std::string build_type;
  std::string host;
  std::string device;
  int port = 1;
  std::string transport;    ///< "RoCEv2"
  std::string link_layer;   ///< "Ethernet"
  int gid_index = 0;
  std::string gid;
  std::string gid_type;
  std::string gid_reason;
  std::uint32_t mtu_bytes = 0;
  std::string connection;   ///< "out-of-band TCP" / "rdma_cm"
  std::string peer;
  std::string local_memory;
  std::string local_memory_device;  ///< the GPU behind it ("NVIDIA H200, PCI 0000:3b:00.0"); empty for host
  std::string memory_registration = "host";  ///< how our buffers were registered: host, dmabuf, peermem
  std::string remote_memory;
  std::string clock;        ///< source and frequency
  std::uint32_t tx_depth = 0;
  std::uint32_t max_inline = 0;
  std::string latency_kind; ///< "one-way (round trip / 2)"; empty for bandwidth
  bool report_gbits = false;
};

}  // namespace rdmabench
