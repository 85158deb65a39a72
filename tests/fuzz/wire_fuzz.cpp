// Fuzz target: wire decoding of every message type. The input is tried as
// one whole frame (wire::decode), and its bytes after the 12-byte header
// (all of it when shorter) as the payload of each message type
// (wire::decode_payload), so that a mutated header does not hide the
// payload decoders. Decoding either returns a message or throws
// rdmabench::Error; a message that decodes survives an encode/decode round
// trip unchanged.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_check.hpp"
#include "rdmabench/verbs/error.hpp"

namespace wire = rdmabench::wire;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  try {
    const auto message = wire::decode(input);
    // A whole frame of type T decodes to a T.
    const auto header = wire::decode_header(input.first(wire::kHeaderSize));
    RDMABENCH_FUZZ_CHECK(wire::decode_payload(header.type, input.subspan(wire::kHeaderSize)) ==
                             message || message != message,
                         wire::type_name(message));
    rdmabench::fuzz::check_round_trip(message);
  } catch (const rdmabench::Error&) {
    // Refused with a message: what the decoder is for.
  }
  const auto payload = size >= wire::kHeaderSize ? input.subspan(wire::kHeaderSize) : input;
  constexpr auto kLastType = static_cast<std::uint16_t>(wire::MessageType::heartbeat);
  static_assert(kLastType == 8, "a new message type: extend the loop's end and the seeds");
  for (std::uint16_t type = 1; type <= kLastType; ++type) {
    try {
      const auto message = wire::decode_payload(static_cast<wire::MessageType>(type), payload);
      rdmabench::fuzz::check_round_trip(message);
    } catch (const rdmabench::Error&) {
    }
  }
  return 0;
}
