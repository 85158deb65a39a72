// --mem text to a MemoryChoice, and what a build without CUDA says.
#include "catch2_compat.hpp"
#include <sstream>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/memory/memory.hpp"
#include "rdmabench/report/report.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

TEST_CASE("memory choice: PCI addresses take the two forms nvidia-smi prints", "[memory]") {
  CHECK(is_pci_bus_id("3b:00.0"));
  CHECK(is_pci_bus_id("0000:3B:00.7"));
  CHECK_FALSE(is_pci_bus_id("00000000:3b:00.0x"));
  CHECK_FALSE(is_pci_bus_id("3b:00.8"));
  CHECK_FALSE(is_pci_bus_id("3b:0.0"));
  CHECK_FALSE(is_pci_bus_id(""));
}

TEST_CASE("memory choice: GPU memory is named the same way in reports", "[memory]") {
  CHECK(parse_memory_choice("cuda-host").name() == "cuda-host:0");
  CHECK(parse_memory_choice("cuda:12").name() == "cuda:12");
  REQUIRE_THROWS_MATCHES(parse_memory_choice("cuda:99999"), Error, MessageContains("invalid GPU ordinal '99999'"));
  REQUIRE_THROWS_MATCHES(parse_memory_choice("cuda-hosts:0"), Error, MessageContains("unknown memory type"));
}

TEST_CASE("memory choice: the header names the GPU and the registration path", "[memory][report]") {
  RunContext c;
  c.local_memory = "cuda:0";
  c.local_memory_device = "NVIDIA H200";
  c.memory_registration = "dmabuf";
  c.remote_memory = "host";
  std::ostringstream out;
  make_console_reporter(out)->begin(c);
  CHECK_THAT(out.str(), Catch::Contains(" Memory          : local cuda:0 [NVIDIA H200] (registration: dmabuf), remote host\n"));
  const auto j = to_json(c);
  CHECK(j["memory"]["registration"] == "dmabuf");
  CHECK(j["memory"]["local_device"] == "NVIDIA H200");
}

#ifdef RDMABENCH_WITHOUT_CUDA
TEST_CASE("memory choice: a build without CUDA says so when GPU memory is asked for", "[memory]") {
  REQUIRE_THROWS_MATCHES(make_memory_provider(parse_memory_choice("cuda:0")), Error,
                         MessageContains("--mem cuda:0: this rdmabench was built without CUDA support"));
}
#endif
