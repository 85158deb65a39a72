#pragma once
// The server's readiness signal for scripts: once it listens, the server
// writes one JSON line to the file named by --ready-file, so that a script
// starts its client when the file appears instead of reading the log.

#include <cstdint>
#include <string>

namespace rdmabench::cli {

/// Writes {"ready": true, "pid": N, "tcp_port": P, "rdma_cm_port": P + 1}
/// to `path` atomically (a temporary file renamed into place), so that a
/// reader never sees half a line. Throws Error naming the path on failure.
void write_ready_file(const std::string& path, std::uint16_t tcp_port);

}  // namespace rdmabench::cli
