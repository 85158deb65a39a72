// The access flags of each buffer and the QP, per operation and fabric: the
// minimum the operation needs, remote write on an iWARP read sink, and PCIe
// relaxed ordering on every data buffer but one the CPU polls.

#include "catch2_compat.hpp"

#include <infiniband/verbs.h>

#include <tuple>

#include "control/access_flags.hpp"

using namespace rdmabench;
using detail::access_for;

namespace {

TestSpec spec_of(Operation operation, Measurement measurement = Measurement::bandwidth) {
  TestSpec spec;
  spec.operation = operation;
  spec.measurement = measurement;
  return spec;
}

constexpr int kLocalWrite = IBV_ACCESS_LOCAL_WRITE;
constexpr int kRemoteWrite = IBV_ACCESS_REMOTE_WRITE;
constexpr int kRemoteRead = IBV_ACCESS_REMOTE_READ;
constexpr int kRemoteAtomic = IBV_ACCESS_REMOTE_ATOMIC;

}  // namespace

TEST_CASE("access flags per operation and fabric, strict ordering", "[access]") {
  using T = TransportKind;
  // operation, transport, local buffer, exposed buffer, QP
  const auto [operation, transport, local, exposed, qp] = GENERATE(table<Operation, T, int, int, int>({
      {Operation::write, T::infiniband, 0, kLocalWrite | kRemoteWrite, kRemoteWrite},
      {Operation::write, T::roce_v2, 0, kLocalWrite | kRemoteWrite, kRemoteWrite},
      {Operation::write, T::iwarp, 0, kLocalWrite | kRemoteWrite, kRemoteWrite},
      {Operation::read, T::infiniband, kLocalWrite, kRemoteRead, kRemoteRead},
      {Operation::read, T::roce_v2, kLocalWrite, kRemoteRead, kRemoteRead},
      {Operation::read, T::roce_v1, kLocalWrite, kRemoteRead, kRemoteRead},
      // RFC 5040: the Read Response is a tagged write into the sink.
      {Operation::read, T::iwarp, kLocalWrite | kRemoteWrite, kRemoteRead, kRemoteRead},
      {Operation::send, T::infiniband, 0, kLocalWrite, 0},
      {Operation::send, T::roce_v2, 0, kLocalWrite, 0},
      {Operation::send, T::iwarp, 0, kLocalWrite, 0},
      {Operation::atomic, T::infiniband, kLocalWrite, kLocalWrite | kRemoteAtomic, kRemoteAtomic},
      {Operation::atomic, T::roce_v2, kLocalWrite, kLocalWrite | kRemoteAtomic, kRemoteAtomic},
      {Operation::atomic, T::iwarp, kLocalWrite, kLocalWrite | kRemoteAtomic, kRemoteAtomic},
  }));
  CAPTURE(static_cast<int>(operation), to_string(transport));
  for (auto measurement : {Measurement::bandwidth, Measurement::latency}) {
    const BufferAccess a = access_for(spec_of(operation, measurement), transport, false);
    CHECK(a.local_buffer == local);
    CHECK(a.exposed_buffer == exposed);
    CHECK(a.qp == qp);
  }
}

TEST_CASE("relaxed ordering: both data buffers, never the QP", "[access]") {
  const auto operation = GENERATE(Operation::write, Operation::read, Operation::send, Operation::atomic);
  const auto transport = GENERATE(TransportKind::infiniband, TransportKind::roce_v2, TransportKind::iwarp);
  const auto strict = access_for(spec_of(operation), transport, false);
  const auto relaxed = access_for(spec_of(operation), transport, true);
  CHECK(relaxed.local_buffer == (strict.local_buffer | IBV_ACCESS_RELAXED_ORDERING));
  CHECK(relaxed.exposed_buffer == (strict.exposed_buffer | IBV_ACCESS_RELAXED_ORDERING));
  CHECK(relaxed.qp == strict.qp);
}

TEST_CASE("relaxed ordering stays off the buffer write latency polls by its last byte", "[access]") {
  auto spec = spec_of(Operation::write, Measurement::latency);
  CHECK(detail::cpu_polls_exposed_buffer(spec));
  auto a = access_for(spec, TransportKind::roce_v2, true);
  CHECK((a.exposed_buffer & IBV_ACCESS_RELAXED_ORDERING) == 0);
  CHECK((a.local_buffer & IBV_ACCESS_RELAXED_ORDERING) != 0);

  // With immediate data the target reaps a completion instead: relaxed is safe.
  spec.write_with_imm = true;
  CHECK_FALSE(detail::cpu_polls_exposed_buffer(spec));
  a = access_for(spec, TransportKind::roce_v2, true);
  CHECK((a.exposed_buffer & IBV_ACCESS_RELAXED_ORDERING) != 0);

  // Send latency and the other bandwidth tests poll completion queues.
  CHECK_FALSE(detail::cpu_polls_exposed_buffer(spec_of(Operation::send, Measurement::latency)));
  CHECK_FALSE(detail::cpu_polls_exposed_buffer(spec_of(Operation::write, Measurement::bandwidth)));
}
