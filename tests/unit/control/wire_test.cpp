// The control protocol's frames: every message type survives a round trip,
// the layout is big-endian as documented, and every malformed frame is
// rejected with a message that says what was wrong.
//
// Malformed frames are built with a local writer, independent of
// wire::encode, so that a bug in the encoder cannot hide one in the decoder.

#include "catch2_compat.hpp"
#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "rdmabench/verbs/error.hpp"
#include "rdmabench/control/test_spec.hpp"
#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/control/wire.hpp"
#include "test_helpers.hpp"

namespace wire = rdmabench::wire;
using Bytes = std::vector<std::uint8_t>;
using rdmabench::test::MessageContains;

namespace {

void put(Bytes& b, std::uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

Bytes header(std::uint16_t type, std::uint32_t length, std::uint32_t magic = wire::kMagic,
             std::uint16_t version = wire::kVersion) {
  Bytes b;
  put(b, magic, 4);
  put(b, version, 2);
  put(b, type, 2);
  put(b, length, 4);
  return b;
}

/// A frame whose header announces exactly the payload it carries.
Bytes frame(wire::MessageType type, const Bytes& payload) {
  auto b = header(static_cast<std::uint16_t>(type), static_cast<std::uint32_t>(payload.size()));
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

/// A Hello payload written byte by byte from the table of test parameters:
/// the fingerprint, then each row big-endian at its width (1 byte for flags
/// and enums, 4 or 8 for integers, a 2-byte count then 8 bytes a size). The
/// values are TestSpec's defaults but for op, measurement, connect,
/// iterations 1000, warmup 10, depth 1 and sizes 2 << i.
Bytes hello_payload(std::uint8_t op, std::uint8_t measurement, std::uint8_t connect,
                    std::size_t size_count) {
  rdmabench::TestSpec s;
  s.iterations = 1000;
  s.warmup = 10;
  s.tx_depth = 1;
  Bytes b;
  put(b, wire::kHelloFingerprint, 4);
  rdmabench::for_each_test_parameter([&](const auto& row) {
    using T = typename std::decay_t<decltype(row)>::Value;
    const std::string_view key = row.key;
    if (key == "operation") b.push_back(op);
    else if (key == "measurement") b.push_back(measurement);
    else if (key == "connect") b.push_back(connect);
    else if constexpr (std::is_same_v<T, std::vector<std::uint64_t>>) {
      put(b, size_count, 2);
      for (std::size_t i = 0; i < size_count; ++i) put(b, std::uint64_t{2} << (i % 31), 8);  // each at most 2^31 bytes
    } else if constexpr (std::is_same_v<T, bool> || std::is_enum_v<T>) {
      b.push_back(static_cast<std::uint8_t>(s.*row.member));
    } else {
      put(b, s.*row.member, static_cast<int>(sizeof(T)));
    }
  });
  return b;
}

/// The Hello bytes after its sizes (the rows that follow them in the table).
std::size_t bytes_after_sizes() {
  std::size_t bytes = 0;
  bool after = false;
  rdmabench::for_each_test_parameter([&](const auto& row) {
    using T = typename std::decay_t<decltype(row)>::Value;
    if constexpr (std::is_same_v<T, std::vector<std::uint64_t>>) {
      after = true;
    } else if (after) {
      bytes += std::is_same_v<T, bool> || std::is_enum_v<T> ? 1 : sizeof(T);
    }
  });
  return bytes;
}
const std::size_t kAfterSizes = bytes_after_sizes();

/// Where the row keyed `key` starts in hello_payload(..., size_count).
std::size_t offset_of(std::string_view key, std::size_t size_count) {
  std::size_t offset = 4;  // the fingerprint
  bool found = false;
  rdmabench::for_each_test_parameter([&](const auto& row) {
    using T = typename std::decay_t<decltype(row)>::Value;
    if (found || (found = key == row.key)) return;
    if constexpr (std::is_same_v<T, std::vector<std::uint64_t>>) offset += 2 + 8 * size_count;
    else offset += std::is_same_v<T, bool> || std::is_enum_v<T> ? 1 : sizeof(T);
  });
  return offset;
}

Bytes text_payload(std::size_t length, std::size_t announced) {
  Bytes b;
  put(b, announced, 2);
  b.insert(b.end(), length, 'x');
  return b;
}

wire::Message round_trip(const wire::Message& m) { return wire::decode(wire::encode(m)); }

rdmabench::TestSpec spec_with_sizes(std::vector<std::uint64_t> sizes) {
  rdmabench::TestSpec s;
  s.operation = rdmabench::Operation::write;
  s.measurement = rdmabench::Measurement::latency;
  s.connect = rdmabench::ConnectMethod::rdma_cm;
  s.iterations = 1'000'000'000;  // the largest -n allows
  s.warmup = 0x01020304;
  s.tx_depth = 65536;
  s.sizes = std::move(sizes);
  return s;
}

}  // namespace

TEST_CASE("wire: Hello round trip with 1, 23 and 64 sizes", "[wire]") {
  std::vector<std::uint64_t> sixty_four;
  for (std::uint64_t i = 0; i < 64; ++i) sixty_four.push_back((i + 1) * 0x01000001ull);
  for (const auto& sizes : {std::vector<std::uint64_t>{65536}, rdmabench::all_sizes(), sixty_four}) {
    INFO(sizes.size() << " sizes");
    const wire::Hello hello{spec_with_sizes(sizes)};
    const auto decoded = round_trip(hello);
    REQUIRE(std::holds_alternative<wire::Hello>(decoded));
    CHECK(std::get<wire::Hello>(decoded) == hello);
  }
}

TEST_CASE("wire: Hello carries each enum value", "[wire]") {
  for (auto measurement : {rdmabench::Measurement::bandwidth, rdmabench::Measurement::latency}) {
    for (auto connect : {rdmabench::ConnectMethod::tcp_exchange, rdmabench::ConnectMethod::rdma_cm}) {
      wire::Hello hello{spec_with_sizes({2})};
      hello.spec.measurement = measurement;
      hello.spec.connect = connect;
      CHECK(std::get<wire::Hello>(round_trip(hello)) == hello);
    }
  }
}

TEST_CASE("wire: Hello carries each queue pair type", "[wire]") {
  for (auto type : {rdmabench::QpType::rc, rdmabench::QpType::uc, rdmabench::QpType::ud}) {
    wire::Hello hello{spec_with_sizes({2, 4})};
    hello.spec.qp_type = type;
    CHECK(std::get<wire::Hello>(round_trip(hello)) == hello);
  }
}

TEST_CASE("wire: Hello with an unknown queue pair type", "[wire]") {
  for (int code : {0, 4}) {
    auto hello = hello_payload(1, 1, 1, 1);
    hello[offset_of("qp_type", 1)] = static_cast<std::uint8_t>(code);
    REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello)), rdmabench::Error,
                           MessageContains("unknown queue pair type code " + std::to_string(code)));
  }
}

TEST_CASE("wire: Reject, Abort, Barrier and Endpoint round trips", "[wire]") {
  const wire::Reject reject{"mismatched --rdma-cm: give -R on both sides"};
  CHECK(std::get<wire::Reject>(round_trip(reject)) == reject);

  const wire::Abort abort{"completion error: remote access error"};
  CHECK(std::get<wire::Abort>(round_trip(abort)) == abort);

  const wire::Abort empty_reason{""};
  CHECK(std::get<wire::Abort>(round_trip(empty_reason)) == empty_reason);

  const wire::Abort longest{std::string(wire::kMaxText, 'r')};
  CHECK(std::get<wire::Abort>(round_trip(longest)) == longest);

  const wire::Barrier barrier{0xdeadbeef};
  CHECK(std::get<wire::Barrier>(round_trip(barrier)) == barrier);

  wire::Endpoint e;
  e.read_responders = 16;
  e.qp_number = 0x00abcdef;
  e.packet_sequence = 0x00123456;
  e.lid = 0xbeef;
  e.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 15};  // ::ffff:10.0.2.15
  e.mtu_bytes = 4096;
  e.rkey = 0xfedcba98;
  e.address = 0x00007f1234567000ull;
  e.length = 8ull << 30;
  e.memory = "hugepage";
  CHECK(std::get<wire::Endpoint>(round_trip(e)) == e);
}

TEST_CASE("wire: type names", "[wire]") {
  CHECK(wire::type_name(wire::Hello{}) == "hello");
  CHECK(wire::type_name(wire::Reject{}) == "reject");
  CHECK(wire::type_name(wire::Endpoint{}) == "endpoint");
  CHECK(wire::type_name(wire::Barrier{}) == "barrier");
  CHECK(wire::type_name(wire::Abort{}) == "abort");
}

TEST_CASE("wire: a Barrier frame is laid out big-endian, byte for byte", "[wire]") {
  const Bytes expected{0x52, 0x44, 0x4D, 0x42,   // magic "RDMB"
                       0x00, 0x05,               // version 5
                       0x00, 0x04,               // type barrier
                       0x00, 0x00, 0x00, 0x04,   // payload length
                       0x01, 0x02, 0x03, 0x04};  // sequence
  CHECK(wire::encode(wire::Barrier{0x01020304}) == expected);
}

TEST_CASE("wire: an Abort frame is laid out big-endian, byte for byte", "[wire]") {
  const Bytes expected{0x52, 0x44, 0x4D, 0x42, 0x00, 0x05, 0x00, 0x05,  // magic, version, abort
                       0x00, 0x00, 0x00, 0x04,                          // payload length
                       0x00, 0x02, 'n',  'o'};                          // u16 length, text
  CHECK(wire::encode(wire::Abort{"no"}) == expected);
}

TEST_CASE("wire: the Hello payload layout", "[wire]") {
  rdmabench::TestSpec s;
  s.measurement = rdmabench::Measurement::latency;
  s.connect = rdmabench::ConnectMethod::tcp_exchange;
  s.iterations = 1000;
  s.warmup = 10;
  s.tx_depth = 1;
  s.sizes = {2, 4};
  // hello_payload writes sizes 2 << i: 2, 4.
  CHECK(wire::encode(wire::Hello{s}) == frame(wire::MessageType::hello, hello_payload(1, 2, 1, 2)));
}

TEST_CASE("wire: decode_header accepts a payload of exactly kMaxPayload", "[wire]") {
  const auto h = wire::decode_header(header(4, wire::kMaxPayload));
  CHECK(h.type == wire::MessageType::barrier);
  CHECK(h.payload_length == wire::kMaxPayload);
}

TEST_CASE("wire: rejects truncated frames", "[wire]") {
  const auto whole = wire::encode(wire::Barrier{7});

  SECTION("header cut short") {
    const Bytes eleven(whole.begin(), whole.begin() + 11);
    REQUIRE_THROWS_MATCHES(wire::decode(eleven), rdmabench::Error,
                           MessageContains("truncated: 11 bytes, header alone is 12"));
    REQUIRE_THROWS_MATCHES(wire::decode_header(eleven), rdmabench::Error,
                           MessageContains("truncated"));
    REQUIRE_THROWS_MATCHES(wire::decode(Bytes{}), rdmabench::Error, MessageContains("truncated"));
  }
  SECTION("payload cut short") {
    const Bytes short_frame(whole.begin(), whole.end() - 1);
    REQUIRE_THROWS_MATCHES(wire::decode(short_frame), rdmabench::Error,
                           MessageContains("announces 4 payload bytes but carries 3"));
  }
  SECTION("a field inside the payload cut short") {
    // The header is consistent, but the barrier payload has 3 of its 4 bytes.
    REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::barrier, {0, 0, 1})),
                           rdmabench::Error, MessageContains("barrier message truncated"));
    // Endpoint's memory text announces 10 bytes and carries 3.
    auto endpoint = wire::encode(wire::Endpoint{});
    Bytes payload(endpoint.begin() + wire::kHeaderSize, endpoint.end() - 2);
    put(payload, 10, 2);
    payload.insert(payload.end(), {'a', 'b', 'c'});
    REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::endpoint, payload)),
                           rdmabench::Error, MessageContains("endpoint message truncated"));
  }
}

TEST_CASE("wire: rejects an oversized payload length before reading it", "[wire]") {
  REQUIRE_THROWS_MATCHES(wire::decode_header(header(4, wire::kMaxPayload + 1)), rdmabench::Error,
                         MessageContains("65537 bytes exceeds the 65536-byte limit"));
  REQUIRE_THROWS_MATCHES(wire::decode_header(header(1, 0xffffffff)), rdmabench::Error,
                         MessageContains("exceeds"));
}

TEST_CASE("wire: rejects a frame that is not ours", "[wire]") {
  // What a web client would send to the control port.
  const std::string http = "GET / HTTP/1.0\r\n\r\n";
  const Bytes bytes(http.begin(), http.end());
  REQUIRE_THROWS_MATCHES(wire::decode(bytes), rdmabench::Error,
                         MessageContains("bad magic 0x47455420"));
  REQUIRE_THROWS_MATCHES(wire::decode_header(header(4, 4, 0x52444D43)), rdmabench::Error,
                         MessageContains("bad magic"));
}

TEST_CASE("wire: rejects another protocol version, naming both", "[wire]") {
  auto f = header(4, 4, wire::kMagic, 1);
  put(f, 1, 4);
  REQUIRE_THROWS_MATCHES(wire::decode(f), rdmabench::Error,
                         MessageContains("version 1") && MessageContains("speaks " + std::to_string(wire::kVersion)));
  REQUIRE_THROWS_MATCHES(wire::decode_header(header(4, 4, wire::kMagic, 0)), rdmabench::Error,
                         MessageContains("version 0"));
}

TEST_CASE("wire: rejects unknown message types", "[wire]") {
  for (std::uint16_t type : std::initializer_list<std::uint16_t>{0, 9, 0xffff}) {
    INFO("type " << type);
    REQUIRE_THROWS_MATCHES(wire::decode_header(header(type, 0)), rdmabench::Error,
                           MessageContains("unknown control message type " + std::to_string(type)));
  }
}

TEST_CASE("wire: rejects trailing bytes", "[wire]") {
  SECTION("beyond the announced payload") {
    auto f = wire::encode(wire::Barrier{1});
    f.push_back(0);
    REQUIRE_THROWS_MATCHES(wire::decode(f), rdmabench::Error,
                           MessageContains("announces 4 payload bytes but carries 5"));
  }
  SECTION("inside the announced payload") {
    REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::barrier, {0, 0, 0, 1, 0xaa})),
                           rdmabench::Error,
                           MessageContains("barrier message has 1 unexpected trailing bytes"));
    auto abort = text_payload(2, 2);
    abort.insert(abort.end(), {1, 2, 3});
    REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::abort, abort)), rdmabench::Error,
                           MessageContains("abort message has 3 unexpected trailing bytes"));
    auto hello = hello_payload(1, 1, 1, 1);
    hello.push_back(0);
    REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello)), rdmabench::Error,
                           MessageContains("hello message has 1 unexpected trailing bytes"));
  }
}

TEST_CASE("wire: Hello with no sizes or more than 64", "[wire]") {
  // The decoder must check, whatever the sender's encoder allowed.
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello_payload(1, 1, 1, 0))),
                         rdmabench::Error, MessageContains("0 message sizes (expected 1 to 64)"));
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello_payload(1, 1, 1, 65))),
                         rdmabench::Error, MessageContains("65 message sizes"));
  // A count far beyond the payload is refused before it is trusted.
  auto huge = hello_payload(1, 1, 1, 0);
  huge[huge.size() - kAfterSizes - 2] = 0xff;  // the u16 count, just before those
  huge[huge.size() - kAfterSizes - 1] = 0xff;
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, huge)), rdmabench::Error,
                         MessageContains("65535 message sizes"));
  // 64 is still fine.
  CHECK_NOTHROW(wire::decode(frame(wire::MessageType::hello, hello_payload(1, 1, 1, 64))));
}

TEST_CASE("wire: the encoder refuses what the decoder would reject", "[wire]") {
  wire::Hello hello{spec_with_sizes(std::vector<std::uint64_t>(65, 4096))};
  REQUIRE_THROWS_MATCHES(wire::encode(hello), rdmabench::Error,
                         MessageContains("more than 64 message sizes"));
  REQUIRE_THROWS_MATCHES(wire::encode(wire::Reject{std::string(wire::kMaxText + 1, 'x')}),
                         rdmabench::Error, MessageContains("longer than 1024"));
}

TEST_CASE("wire: Hello with unknown enum codes", "[wire]") {
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello_payload(5, 1, 1, 1))),
                         rdmabench::Error, MessageContains("unknown operation code 5"));
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello_payload(0, 1, 1, 1))),
                         rdmabench::Error, MessageContains("unknown operation code 0"));
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello_payload(1, 3, 1, 1))),
                         rdmabench::Error, MessageContains("unknown measurement code 3"));
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello_payload(1, 1, 3, 1))),
                         rdmabench::Error, MessageContains("unknown connection method code 3"));
  auto hello = hello_payload(1, 1, 1, 1);
  hello[offset_of("passive_wait", 1)] = 4;
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello)), rdmabench::Error,
                         MessageContains("unknown passive wait code 4"));
}

TEST_CASE("wire: text fields longer than 1024 bytes", "[wire]") {
  REQUIRE_THROWS_MATCHES(
      wire::decode(frame(wire::MessageType::reject, text_payload(1025, 1025))), rdmabench::Error,
      MessageContains("reject message: text field of 1025 bytes (limit 1024)"));
  // Refused on the announced length alone, before looking for the bytes.
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::abort, text_payload(0, 60000))),
                         rdmabench::Error, MessageContains("text field of 60000 bytes"));
  CHECK(std::get<wire::Reject>(
            wire::decode(frame(wire::MessageType::reject, text_payload(1024, 1024))))
            .reason.size() == 1024);
}

TEST_CASE("wire: CpuReport round trip keeps every figure and the empty optionals", "[wire]") {
  rdmabench::CpuUsage u;
  u.wall_s = 2.0;
  u.resolution_s = 0.01;
  u.process_cpu_s = 1.8;
  u.process_cores = 0.9;
  u.process_user_cores = 0.75;
  u.process_system_cores = 0.15;
  u.process_cpu_s_per_gb = 1.8;
  u.machine_cpus = 2;
  u.machine_cores = 1.45;
  u.machine_user_cores = 0.8;
  u.machine_nice_cores = 0.01;
  u.machine_system_cores = 0.5;
  u.machine_irq_cores = 0.02;
  u.machine_softirq_cores = 0.1;
  u.machine_steal_cores = 0.02;
  u.machine_iowait_cores = 0.003;
  CHECK(std::get<wire::CpuReport>(round_trip(wire::CpuReport{u})).usage == u);
  u.process_cpu_s_per_gb.reset();
  u.machine_iowait_cores.reset();
  const auto back = std::get<wire::CpuReport>(round_trip(wire::CpuReport{u})).usage;
  CHECK(back == u);
  CHECK_FALSE(back.process_cpu_s_per_gb.has_value());
  CHECK(wire::type_name(wire::CpuReport{}) == "cpu report");
}

TEST_CASE("wire: Hello carries -q, -D and -b", "[wire]") {
  rdmabench::TestSpec s;
  s.queue_pairs = 16;
  s.duration_s = 7;
  s.bidirectional = true;
  const auto back = std::get<wire::Hello>(round_trip(wire::Hello{s})).spec;
  CHECK(back == s);
}

TEST_CASE("wire: Hello with 0 or too many queue pairs is rejected", "[wire]") {
  for (std::uint32_t qps : {0u, rdmabench::kMaxQueuePairs + 1}) {
    rdmabench::TestSpec s;
    s.queue_pairs = qps;
    REQUIRE_THROWS_MATCHES(round_trip(wire::Hello{s}), rdmabench::Error,
                           MessageContains(fmt::format("hello message: -q/--qp {} is out of range", qps)));
  }
}

TEST_CASE("wire: BandwidthReport round trip keeps the per-QP figures", "[wire]") {
  rdmabench::BandwidthFigures b{1.5, 900.0, 850.0, 0.013, 19456, {425.0, 425.0}};
  CHECK(std::get<wire::BandwidthReport>(round_trip(wire::BandwidthReport{b})).figures == b);
  b.per_qp_mb_per_s.clear();
  CHECK(std::get<wire::BandwidthReport>(round_trip(wire::BandwidthReport{b})).figures == b);
  CHECK(wire::type_name(wire::BandwidthReport{}) == "bandwidth report");
}

TEST_CASE("wire: Hello carries each flag away from its default", "[wire]") {
  // A flag the decoder forgot would come back as its default.
  const std::vector<std::pair<const char*, void (*)(rdmabench::TestSpec&)>> flags{
      {"--cpu-util", [](rdmabench::TestSpec& s) { s.cpu_util = true; }},
      {"--write-with-imm", [](rdmabench::TestSpec& s) { s.write_with_imm = true; }},
      {"warm up the first size only", [](rdmabench::TestSpec& s) { s.warmup_each_size = false; }},
      {"-r", [](rdmabench::TestSpec& s) { s.rx_depth = 4096; }},
      {"--passive-wait sleep",
       [](rdmabench::TestSpec& s) { s.passive_wait = rdmabench::PassiveWait::sleep; }},
      {"-e", [](rdmabench::TestSpec& s) { s.use_event = true; }},
  };
  for (const auto& [name, set] : flags) {
    INFO(name);
    rdmabench::TestSpec s;
    set(s);
    REQUIRE_FALSE(s == rdmabench::TestSpec{});
    CHECK(std::get<wire::Hello>(round_trip(wire::Hello{s})).spec == s);
  }
}

TEST_CASE("wire: a hello from a build with another table of parameters is refused", "[wire]") {
  auto hello = hello_payload(1, 1, 1, 1);
  hello[0] ^= 0x01;  // the fingerprint comes first
  REQUIRE_THROWS_MATCHES(wire::decode(frame(wire::MessageType::hello, hello)), rdmabench::Error,
                         MessageContains("the peer's test parameters (table") &&
                             MessageContains("use the same rdmabench version on both sides"));
}

TEST_CASE("wire: control characters in the peer's text arrive escaped", "[wire]") {
  const wire::Reject hostile{"bad\x1b[2Jnews\x07\n"};
  const auto back = std::get<wire::Reject>(round_trip(hostile));
  CHECK(back.reason == "bad\\x1b[2Jnews\\x07\\x0a");
}

TEST_CASE("wire: escaped text is cut back to the limit, so what was decoded encodes again", "[wire]") {
  // 300 control bytes escape to 1,200: over kMaxText, which encode refuses.
  const wire::Reject hostile{std::string(300, '\x01')};
  const auto back = std::get<wire::Reject>(round_trip(hostile));
  CHECK(back.reason.size() <= wire::kMaxText);
  CHECK(back.reason.starts_with("\\x01\\x01"));
  CHECK(back.reason.ends_with("..."));
  CHECK_NOTHROW(wire::encode(back));

  // Text that fits once escaped comes back whole, with no mark.
  const wire::Reject fits{std::string(255, '\x01')};  // 1,020 bytes escaped
  CHECK(std::get<wire::Reject>(round_trip(fits)).reason.size() == 1020);
}

TEST_CASE("wire: peer text that is not UTF-8 and C1 controls arrive escaped while valid UTF-8 is kept",
          "[wire]") {
  const auto reason_of = [](const std::string& text) {
    return std::get<wire::Reject>(round_trip(wire::Reject{text})).reason;
  };
  CHECK(reason_of("rxe\xff" "0") == "rxe\\xff0");               // a byte no UTF-8 text holds
  CHECK(reason_of("a\xc2\x9b" "2Jb") == "a\\u009b2Jb");         // CSI, the C1 escape
  CHECK(reason_of("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");  // é and €
  CHECK(reason_of("\xc0\x80") == "\\xc0\\x80");                  // an overlong NUL
  CHECK(reason_of("\xed\xa0\x80") == "\\xed\\xa0\\x80");         // a surrogate
  CHECK(reason_of("cut \xe2\x82") == "cut \\xe2\\x82");          // a sequence cut short
  CHECK(reason_of("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  // Whatever comes back is UTF-8 again and encodes again.
  const std::string mixed = reason_of(std::string(400, '\xff'));
  CHECK(mixed.size() <= 1024);
  CHECK_NOTHROW(wire::encode(wire::Reject{mixed}));
}

TEST_CASE("wire: figures a peer reports must be finite and not negative", "[wire]") {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), -1.0}) {
    INFO(bad);
    wire::BandwidthReport bandwidth;
    bandwidth.figures.average_mb_per_s = bad;
    REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(bandwidth)), rdmabench::Error,
                           MessageContains("bandwidth report: a figure of"));
    wire::BandwidthReport per_qp;
    per_qp.figures.per_qp_mb_per_s = {1.0, bad};
    REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(per_qp)), rdmabench::Error,
                           MessageContains("bandwidth report (per QP): a figure of"));
    wire::CpuReport cpu;
    cpu.usage.process_cores = bad;
    REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(cpu)), rdmabench::Error,
                           MessageContains("CPU report: a figure of"));
  }
  wire::CpuReport cpus;
  cpus.usage.machine_cpus = -1;  // 4294967295 on the wire: no int holds it
  REQUIRE_THROWS_MATCHES(wire::decode(wire::encode(cpus)), rdmabench::Error,
                         MessageContains("CPU report: 4294967295 CPUs"));
  CHECK_NOTHROW(wire::decode(wire::encode(wire::CpuReport{})));
}
