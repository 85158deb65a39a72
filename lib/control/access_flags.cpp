#include "control/access_flags.hpp"

#include <infiniband/verbs.h>

namespace rdmabench::detail {

namespace {

/// What the operation needs on any fabric. Verbs requires local write
/// alongside remote write and remote atomic.
BufferAccess minimum_access(Operation operation) {
  switch (operation) {
    case Operation::read:
      return {IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_READ};
    case Operation::send:
      return {0, IBV_ACCESS_LOCAL_WRITE, 0};
    case Operation::atomic:
      return {IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
              IBV_ACCESS_REMOTE_ATOMIC};
    case Operation::write:
      break;
  }
  return {0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE};
}

}  // namespace

bool cpu_polls_exposed_buffer(const TestSpec& spec) {
  return spec.operation == Operation::write && spec.measurement == Measurement::latency &&
         !writes_with_immediate(spec);
}

BufferAccess access_for(const TestSpec& spec, TransportKind transport, bool relaxed_ordering) {
  BufferAccess access = minimum_access(spec.operation);
  if (spec.operation == Operation::read && transport == TransportKind::iwarp)
    access.local_buffer |= IBV_ACCESS_REMOTE_WRITE;
  if (relaxed_ordering) {
    access.local_buffer |= IBV_ACCESS_RELAXED_ORDERING;
    if (!cpu_polls_exposed_buffer(spec)) access.exposed_buffer |= IBV_ACCESS_RELAXED_ORDERING;
  }
  return access;
}

}  // namespace rdmabench::detail
