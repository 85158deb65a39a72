#pragma once
/// @file
/// Every test parameter, defined once. The table kTestParameters drives:
/// the command-line options (bench/cli declares and parses its rows), the
/// hello's wire encoding and decoding (in row order), the conflict check
/// between the two sides, the server's adoption of the client's choice, the
/// range check (the same rules for the command line and for what a server
/// adopts), and the `parameters` object of the report context.
///
/// Adding a parameter: a field in TestSpec, a row here, and the code that
/// uses the value. Nothing else spells it.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "rdmabench/control/test_spec.hpp"

namespace rdmabench {

/// How the two sides treat a parameter of the hello.
enum class Agreement : std::uint8_t {
  fixed,       ///< follows from the binary; a difference means another test
  must_match,  ///< each side gives it; a difference is refused, naming the option
  adopt,       ///< the client chooses; the server takes the client's value
};

/// Where a generic option appears in --help; none: not declared from the
/// table (the binary implies it, or bench/cli declares it by hand).
enum class OptionGroup : std::uint8_t { none, connection, test, placement, output };

/// The values an integer parameter may take: min..max, and also 0 when
/// zero_means_default (0 stands for "not given": the library chooses).
struct Bounds {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  bool zero_means_default = false;
  const char* unit = "";  ///< appended to the range in messages: " seconds"
  bool size = false;      ///< a byte count, given as -s is: 4096, 64K, 8M
};

/// Which binaries take an option: the operations and measurements it
/// applies to (empty: all), and how a binary outside them refuses it:
/// "OPTION applies to TESTS; BINARY OTHERWISE" ("-l/--post-list applies to
/// bandwidth tests; rdma_write_lat has one message in flight"). Their
/// --help does not list it.
struct AppliesTo {
  std::uint8_t operations = 0;    ///< bits of applies_bit(Operation); 0: every operation
  std::uint8_t measurements = 0;  ///< bits of applies_bit(Measurement); 0: both
  const char* tests = "";         ///< "bandwidth tests"
  const char* otherwise = "";     ///< " has one message in flight", after the binary's name

  constexpr bool covers(Operation operation, Measurement measurement) const {
    return (!operations || (operations & (1u << static_cast<unsigned>(operation)))) &&
           (!measurements || (measurements & (1u << static_cast<unsigned>(measurement))));
  }
};
constexpr std::uint8_t applies_bit(Operation operation) {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(operation));
}
constexpr std::uint8_t applies_bit(Measurement measurement) {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(measurement));
}

/// One row of the table.
template <typename T>
struct TestParameter {
  using Value = T;
  const char* key;     ///< name in the report context and in wire messages: "iterations"
  const char* option;  ///< as a user spells it: "-n/--iters"; "" when no option sets it
  T TestSpec::*member;
  Agreement agreement;
  OptionGroup group = OptionGroup::none;
  const char* help = "";  ///< --help text; "{}" stands for the binary's default
  Bounds bounds{};        ///< integers and each element of a list of sizes
  /// must_match enums and integers: the message after "mismatched OPTION: ",
  /// with {server} and {client} for the two values; empty: a generic one.
  const char* mismatch = "";
  AppliesTo applies{};  ///< empty: every binary takes it
};

/// The names of an enum's values as the command line and the reports spell
/// them; code k (the wire's byte) is names[k - 1].
template <typename E>
struct EnumNames;
template <>
struct EnumNames<Operation> {
  static constexpr std::array<const char*, 4> names{"write", "read", "send", "atomic"};
  static constexpr const char* what = "operation";
};
template <>
struct EnumNames<Measurement> {
  static constexpr std::array<const char*, 2> names{"bandwidth", "latency"};
  static constexpr const char* what = "measurement";
};
template <>
struct EnumNames<ConnectMethod> {
  static constexpr std::array<const char*, 2> names{"out-of-band TCP", "rdma_cm"};
  static constexpr const char* what = "connection method";
};
template <>
struct EnumNames<AtomicOp> {
  static constexpr std::array<const char*, 2> names{"FETCH_AND_ADD", "CMP_AND_SWAP"};
  static constexpr const char* what = "atomic operation";
};
template <>
struct EnumNames<QpType> {
  static constexpr std::array<const char*, 3> names{"RC", "UC", "UD"};
  static constexpr const char* what = "queue pair type";
};
template <>
struct EnumNames<PassiveWait> {
  static constexpr std::array<const char*, 3> names{"auto", "spin", "sleep"};
  static constexpr const char* what = "passive wait";
};

template <>
struct EnumNames<LoadOp> {
  static constexpr std::array<const char*, 3> names{"write", "read", "send"};
  static constexpr const char* what = "load operation";
};

template <typename T>
concept TestEnum = std::is_enum_v<T> && requires { EnumNames<T>::names; };

/// The largest message: one scatter entry's 32-bit length can describe it
/// (RDMA defines messages up to 2^31 bytes; devices say less in max_msg_sz).
inline constexpr std::uint64_t kMaxMessageBytes = (std::uint64_t{1} << 32) - 1;
/// Sizes in one run (the hello carries at most this many).
inline constexpr std::size_t kMaxSizes = 64;
/// Queue pairs one run may spread over (-q).
inline constexpr std::uint32_t kMaxQueuePairs = 1024;
/// UD queue pairs one multicast server attaches to its group (-g/--mcg);
/// the device may allow fewer (max_mcast_qp_attach: 56 on rxe).
inline constexpr std::uint32_t kMaxMulticastReceivers = 256;
/// --repeat: how many times one run may measure its size list.
inline constexpr std::uint32_t kMaxRepeats = 1000;
/// Background load queue pairs of a latency test (--load-qps).
inline constexpr std::uint32_t kMaxLoadQueuePairs = 64;
/// The largest load message (--load-size): each side holds two buffers of it.
inline constexpr std::uint64_t kMaxLoadBytes = std::uint64_t{1} << 30;

/// --load-qps and its options: a load beside a latency test.
inline constexpr AppliesTo kLoadAppliesTo{0, applies_bit(Measurement::latency),
                                          "latency tests (rdma_*_lat), which it loads while they measure",
                                          " is a bandwidth test: use -q/--qp for more streams"};

// clang-format off
/// The rows, in the order the hello carries them. The hello also carries
/// the table's fingerprint (below), so a change here needs no other edit to
/// keep two different builds from misreading each other.
inline constexpr auto kTestParameters = std::make_tuple(
    TestParameter<Operation>{"operation", "", &TestSpec::operation, Agreement::fixed},
    TestParameter<Measurement>{"measurement", "", &TestSpec::measurement, Agreement::fixed},
    TestParameter<ConnectMethod>{"connect", "--rdma-cm", &TestSpec::connect, Agreement::must_match,
        OptionGroup::none, "", {},
        "the server connects with {server}, the client with {client}; give -R/--rdma-cm on both "
        "sides or on neither"},
    TestParameter<std::uint64_t>{"iterations", "-n/--iters", &TestSpec::iterations, Agreement::adopt,
        OptionGroup::test, "timed iterations per size (default {})", {1, 1'000'000'000}},
    TestParameter<std::uint32_t>{"warmup", "--warmup", &TestSpec::warmup, Agreement::adopt,
        OptionGroup::test, "untimed iterations before each size (default: 100, or the tx depth for "
        "bandwidth, where an -a sweep warms its first size only)", {0, 1'000'000'000}},
    TestParameter<std::uint32_t>{"tx_depth", "-t/--tx-depth", &TestSpec::tx_depth, Agreement::adopt,
        OptionGroup::test, "operations in flight (default {})", {1, 65536}},
    TestParameter<std::uint32_t>{"rx_depth", "-r/--rx-depth", &TestSpec::rx_depth, Agreement::adopt,
        OptionGroup::test, "receives kept posted (send tests; default 512, 4096 on iWARP)",
        {1, 65536, true}, "", {applies_bit(Operation::send), 0, "send tests", " posts no receives"}},
    // Must match: with -b and in send_lat both sides receive, each side's
    // receives change, and a server told --use-srq never runs without one.
    TestParameter<bool>{"use_srq", "--use-srq", &TestSpec::use_srq, Agreement::must_match,
        OptionGroup::test, "send tests: every queue pair takes its receives from one shared receive "
        "queue (SRQ) of -r x -q receives, at most the device's max_srq_wr; give it on both sides",
        {}, "", {applies_bit(Operation::send), 0, "send tests (rdma_send_bw and rdma_send_lat), whose "
        "receiving side posts receives", " is not one of them"}},
    TestParameter<std::uint32_t>{"post_list", "-l/--post-list", &TestSpec::post_list, Agreement::adopt,
        OptionGroup::test, "work requests per post, chained (bandwidth tests; default 1)", {1, 65536}, "",
        {0, applies_bit(Measurement::bandwidth), "bandwidth tests", " has one message in flight"}},
    TestParameter<std::uint32_t>{"cq_mod", "-Q/--cq-mod", &TestSpec::cq_mod, Agreement::adopt,
        OptionGroup::test, "signal one write in N (bandwidth; default 3/4 of the tx depth, at most "
        "100, and at least one per 64 KiB)", {1, 65536, true}, "",
        {0, applies_bit(Measurement::bandwidth), "bandwidth tests", " signals every message"}},
    TestParameter<bool>{"cpu_util", "--cpu-util", &TestSpec::cpu_util, Agreement::adopt,
        OptionGroup::output, "report the CPU cost of each size on both sides"},
    TestParameter<bool>{"validate", "--validate", &TestSpec::validate, Agreement::adopt,
        OptionGroup::output, "after each size, check every byte of untimed messages"},
    TestParameter<AtomicOp>{"atomic", "-A/--atomic-type", &TestSpec::atomic, Agreement::must_match,
        OptionGroup::test, "atomic tests: FETCH_AND_ADD (default) or CMP_AND_SWAP", {},
        "the server runs {server}, the client {client}; give the same on both sides",
        {applies_bit(Operation::atomic), 0, "atomic tests", " runs none"}},
    TestParameter<std::uint32_t>{"queue_pairs", "-q/--qp", &TestSpec::queue_pairs, Agreement::adopt,
        OptionGroup::test, "queue pairs on the connection (bandwidth tests; default 1)",
        {1, kMaxQueuePairs}, "",
        {0, applies_bit(Measurement::bandwidth), "bandwidth tests", " times one message at a time on one QP"}},
    TestParameter<std::uint32_t>{"load_queue_pairs", "--load-qps", &TestSpec::load_queue_pairs,
        Agreement::adopt, OptionGroup::test, "latency tests, client: while the latency is measured, "
        "N more RC queue pairs stream --load-op messages of --load-size to the server (latency "
        "under load)", {1, kMaxLoadQueuePairs, true, " load queue pairs"}, "", kLoadAppliesTo},
    TestParameter<std::uint64_t>{"load_size", "--load-size", &TestSpec::load_size, Agreement::adopt,
        OptionGroup::test, "with --load-qps: bytes of each load message, K/M/G suffixes (default 64K)",
        {1, kMaxLoadBytes, false, " bytes", /*size=*/true}, "", kLoadAppliesTo},
    TestParameter<LoadOp>{"load_op", "--load-op", &TestSpec::load_op, Agreement::adopt,
        OptionGroup::test, "with --load-qps: write (default), read, or send (the server keeps "
        "receives posted on each load QP)", {}, "", kLoadAppliesTo},
    TestParameter<std::uint32_t>{"duration_s", "-D/--duration", &TestSpec::duration_s, Agreement::adopt,
        OptionGroup::test, "run each size for SECONDS instead of -n; the first and last tenth are "
        "not timed", {1, 86400, true, " seconds"}},
    TestParameter<bool>{"bidirectional", "-b/--bidirectional", &TestSpec::bidirectional,
        Agreement::must_match, OptionGroup::test,
        "both sides send at once (bandwidth tests; give it on both sides)", {}, "",
        {0, applies_bit(Measurement::bandwidth), "bandwidth tests", " already times messages in both directions"}},
    TestParameter<std::vector<std::uint64_t>>{"sizes", "-s/--size", &TestSpec::sizes, Agreement::adopt,
        OptionGroup::none, "", {1, kMaxMessageBytes}},
    TestParameter<std::uint32_t>{"multicast_receivers", "-g/--mcg", &TestSpec::multicast_receivers,
        Agreement::must_match, OptionGroup::connection,
        "send to a UD multicast group (implies -c UD; perftest's -g): the server attaches N receiving "
        "queue pairs to the group (-g alone: 1) and reports each one's delivery; give it on both sides",
        {1, kMaxMulticastReceivers, true, " receiving queue pairs"},
        "the server attaches {server} receiving queue pairs to a multicast group, the client asks for "
        "{client} (0: no multicast); give the same -g on both sides",
        {applies_bit(Operation::send), 0, "send tests", " sends no messages a group could receive"}},
    TestParameter<QpType>{"qp_type", "-c/--connection", &TestSpec::qp_type, Agreement::must_match,
        OptionGroup::connection,
        "queue pair type: RC (default), UC (sends and writes) or UD (sends; one MTU per message)", {},
        "the server uses {server} queue pairs, the client {client}; give the same -c on both sides"},
    TestParameter<bool>{"write_with_imm", "--write-with-imm", &TestSpec::write_with_imm,
        Agreement::must_match, OptionGroup::test,
        "writes carry immediate data; the target reaps a completion for each (write tests; not on "
        "iWARP)", {}, "", {applies_bit(Operation::write), 0, "write tests", " performs no RDMA writes"}},
    TestParameter<bool>{"warmup_each_size", "", &TestSpec::warmup_each_size, Agreement::adopt},
    TestParameter<std::uint64_t>{"run_id", "", &TestSpec::run_id, Agreement::adopt, OptionGroup::none, "",
        {0, kMaxRunId}},
    TestParameter<PassiveWait>{"passive_wait", "--passive-wait", &TestSpec::passive_wait,
        Agreement::adopt, OptionGroup::placement,
        "read and atomic latency: the idle server keeps a CPU busy at the lowest priority (spin), "
        "so a soft device's responder thread never waits for a CPU to wake, or lets it idle "
        "(sleep); auto (default) spins on iWARP only; the client's choice holds", {}, "",
        {applies_bit(Operation::read) | applies_bit(Operation::atomic), applies_bit(Measurement::latency),
         "rdma_read_lat and rdma_atomic_lat, whose server is idle while the client times",
         " is not one of them"}},
    TestParameter<std::uint32_t>{"qp_timeout", "-u/--qp-timeout", &TestSpec::qp_timeout,
        Agreement::adopt, OptionGroup::connection,
        "RC ack timeout: 4.096 usec x 2^N per try, 7 tries (default {}, ~67 ms)", {1, 31}},
    // The client's --rate sets it (bench/cli); the server must know, since
    // for send and write latency it then echoes instead of taking turns.
    TestParameter<bool>{"open_loop", "", &TestSpec::open_loop, Agreement::adopt},
    // --run-infinitely and --report-every (bench/cli): both sides run
    // periods until either stops.
    TestParameter<bool>{"run_infinitely", "", &TestSpec::run_infinitely, Agreement::adopt},
    // The client's choice: both sides run the size list that many times,
    // in step, so that a comparison has repeats of one run (one run_id).
    TestParameter<std::uint32_t>{"repeats", "--repeat", &TestSpec::repeats, Agreement::adopt,
        OptionGroup::test, "run the whole size list N times over the one connection; each record "
        "carries its repeat (1..N) and N, under one run_id (default {})", {1, kMaxRepeats, false, " repeats"}});
// clang-format on

/// A number that changes whenever a row is added, removed, renamed, moved or
/// changes type: the hello starts with it, so two builds whose tables differ
/// refuse each other by name instead of misreading fields.
consteval std::uint32_t test_parameters_fingerprint() {
  std::uint32_t hash = 2166136261u;  // FNV-1a
  const auto mix = [&](std::uint32_t byte) { hash = (hash ^ byte) * 16777619u; };
  std::apply(
      [&](const auto&... row) {
        (
            [&] {
              for (const char* c = row.key; *c; ++c) mix(static_cast<unsigned char>(*c));
              using T = typename std::decay_t<decltype(row)>::Value;
              mix(std::is_enum_v<T> ? 1u : std::is_same_v<T, bool> ? 2u : 3u);
              mix(static_cast<std::uint32_t>(sizeof(T)));
            }(),
            ...);
      },
      kTestParameters);
  return hash;
}

/// Calls `visit(row)` for every row, in order.
template <typename Visit>
void for_each_test_parameter(Visit&& visit) {
  std::apply([&](const auto&... row) { (visit(row), ...); }, kTestParameters);
}

/// "-n" from "-n/--iters", "--warmup" from "--warmup": how a message that
/// asks for the option again spells it.
std::string_view short_spelling(std::string_view option);

/// The first option on which a server configured as `server` cannot serve a
/// client asking for `client`, as a message naming the option; nullopt if
/// they are compatible.
std::optional<std::string> find_conflict(const TestSpec& server, const TestSpec& client);

/// The spec a server runs for `client`: its own values of the fixed and
/// must-match parameters, the client's of every adopted one.
TestSpec adopt_client_choice(const TestSpec& server, const TestSpec& client);

/// The first parameter outside its bounds, or a combination the bounds of
/// one another forbid (-l or -Q above -t), as a message naming the option,
/// its value and what is allowed; nullopt if every value is allowed. The
/// command line and a server adopting a client's hello apply the same.
std::optional<std::string> find_out_of_range(const TestSpec& spec);

}  // namespace rdmabench
