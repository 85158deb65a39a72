#pragma once
// Which IBV_ACCESS_* flags each buffer and the queue pair get: the minimum
// the operation needs, what the fabric adds, and PCIe relaxed ordering.

#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/verbs/connection.hpp"
#include "rdmabench/verbs/transport.hpp"

namespace rdmabench::detail {

/// True where the timed loop learns of an arrival by polling the last byte
/// of the exposed buffer from the CPU (write latency without immediate).
bool cpu_polls_exposed_buffer(const TestSpec& spec);

/// The flags for `spec` on `transport`. On iWARP the sink of an RDMA Read
/// also needs remote write (RFC 5040 carries a Read Response as a tagged
/// write into the sink; hardware checks it, siw does not). With
/// `relaxed_ordering`, both buffers ask for IBV_ACCESS_RELAXED_ORDERING (an
/// optional flag, dropped by devices without it), except a buffer the CPU
/// polls by its last byte: relaxed ordering lets that byte land before the
/// rest of the message.
BufferAccess access_for(const TestSpec& spec, TransportKind transport, bool relaxed_ordering);

}  // namespace rdmabench::detail
