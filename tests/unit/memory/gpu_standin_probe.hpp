#pragma once
// What the GPU plug-ins' unit tests ask of a stand-in (tests/gpu_standin)
// and of the memory it backs.
#include <dlfcn.h>

#include <vector>

#include "catch2_compat.hpp"
#include "rdmabench/control/session.hpp"
#include "rdmabench/memory/memory.hpp"

namespace rdmabench::test {

/// Allocations and contexts the stand-in at `library` has handed out and
/// not had back; the library stays loaded by this handle only while we ask.
inline int standin_outstanding(const char* library) {
  void* handle = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle);
  auto outstanding = reinterpret_cast<int (*)()>(::dlsym(handle, "rdmabench_gpu_standin_outstanding"));
  REQUIRE(outstanding);
  const int n = outstanding();
  ::dlclose(handle);
  return n;
}

/// The first `bytes` of `buffer`, through the provider's device copy.
inline std::vector<std::byte> read_back(MemoryProvider& memory, const Buffer& buffer, std::size_t bytes) {
  std::vector<std::byte> out(bytes);
  memory.copy_out(buffer, out);
  return out;
}

/// A client of `operation` x `measurement` on `memory` ("cuda:0") that
/// connects to a port where nothing listens: what it throws says whether
/// it got as far as the network.
inline void connect_client_on(const std::string& memory, Operation operation, Measurement measurement) {
  SideConfig config;
  config.memory = parse_memory_choice(memory);
  config.server = "127.0.0.1";
  config.tcp_port = 1;
  config.timeout = Milliseconds(500);
  TestSpec spec;
  spec.operation = operation;
  spec.measurement = measurement;
  spec.sizes = {64};
  connect_to_server(config, spec, [](const std::string&) {});
}

}  // namespace rdmabench::test
