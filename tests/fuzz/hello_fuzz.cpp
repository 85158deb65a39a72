// Fuzz target: a hello's validation and adoption on the server. The input is
// a hello payload; one that decodes is checked against two servers (the
// default spec, and the default spec of the client's own binary) with
// find_conflict, adopt_client_choice and find_out_of_range, as a server does
// before it sizes a buffer or bounds a loop with what it adopted.
// Invariants: a decoded hello is in range; a server adopts exactly the rows
// marked adopt and keeps its own value of every other; an adopted spec with
// no conflict is in range (so 1 to 64 sizes, each within bounds) and
// survives the wire unchanged.
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "fuzz_check.hpp"
#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/verbs/error.hpp"

namespace {

using rdmabench::Agreement;
using rdmabench::TestSpec;

void check_adoption(const TestSpec& server, const TestSpec& client) {
  const auto adopted = rdmabench::adopt_client_choice(server, client);
  rdmabench::for_each_test_parameter([&](const auto& row) {
    const auto& expected = row.agreement == Agreement::adopt ? client : server;
    RDMABENCH_FUZZ_CHECK(adopted.*row.member == expected.*row.member, row.key);
  });
  const auto conflict = rdmabench::find_conflict(server, client);
  if (conflict) {
    RDMABENCH_FUZZ_CHECK(!conflict->empty(), "an empty conflict message");
    return;  // the server refuses this client: nothing it adopted is used
  }
  rdmabench::for_each_test_parameter([&](const auto& row) {
    if (row.agreement != Agreement::adopt)
      RDMABENCH_FUZZ_CHECK(server.*row.member == client.*row.member, row.key);
  });
  const auto problem = rdmabench::find_out_of_range(adopted);
  RDMABENCH_FUZZ_CHECK(!problem, problem.value_or(""));
  RDMABENCH_FUZZ_CHECK(!adopted.sizes.empty() && adopted.sizes.size() <= rdmabench::kMaxSizes,
                       std::to_string(adopted.sizes.size()));
  for (const auto bytes : adopted.sizes)
    RDMABENCH_FUZZ_CHECK(bytes >= 1 && bytes <= rdmabench::kMaxMessageBytes, std::to_string(bytes));
  rdmabench::fuzz::check_round_trip(rdmabench::wire::Hello{adopted});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  TestSpec client;
  try {
    const auto message = rdmabench::wire::decode_payload(rdmabench::wire::MessageType::hello,
                                                         std::span<const std::uint8_t>(data, size));
    client = std::get<rdmabench::wire::Hello>(message).spec;
  } catch (const rdmabench::Error&) {
    return 0;  // refused by the decoder, with a message
  }
  // The decoder applies the command line's rules: nothing out of range gets by.
  const auto problem = rdmabench::find_out_of_range(client);
  RDMABENCH_FUZZ_CHECK(!problem, problem.value_or(""));

  check_adoption(TestSpec{}, client);
  TestSpec same_binary;
  same_binary.operation = client.operation;
  same_binary.measurement = client.measurement;
  check_adoption(same_binary, client);
  return 0;
}
