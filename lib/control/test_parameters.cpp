// What the table of test parameters decides on its own: conflicts between
// the two sides, adoption of the client's choice, and range checks.
#include "rdmabench/control/test_parameters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rdmabench/compat/fmt_runtime.hpp"

namespace rdmabench {

std::string_view short_spelling(std::string_view option) {
  return option.substr(0, option.find('/'));
}

namespace {

template <TestEnum E>
std::string value_name(E value) {
  const auto code = static_cast<std::size_t>(value);
  const auto& names = EnumNames<E>::names;
  return code >= 1 && code <= names.size() ? names[code - 1] : fmt::format("code {}", code);
}

/// The message after "mismatched OPTION: " for a row whose values differ.
template <typename T>
std::string mismatch_text(const TestParameter<T>& row, const T& server, const T& client) {
  if constexpr (std::is_same_v<T, bool>) {
    const char* giver = server ? "server" : "client";
    const char* other = server ? "client" : "server";
    return fmt::format("the {} gives it, the {} does not; give {} on both sides or on neither",
                       giver, other, short_spelling(row.option));
  } else if constexpr (TestEnum<T>) {
    const std::string_view form = *row.mismatch
                                      ? row.mismatch
                                      : "the server gives {server}, the client {client}; give the "
                                        "same on both sides";
    return fmt::format(runtime_format(form), fmt::arg("server", value_name(server)),
                       fmt::arg("client", value_name(client)));
  } else if constexpr (std::is_integral_v<T>) {
    if (*row.mismatch)
      return fmt::format(runtime_format(row.mismatch), fmt::arg("server", server), fmt::arg("client", client));
    return fmt::format("the server gives {}, the client {}; give the same on both sides", server, client);
  } else {
    return fmt::format("the server gives {}, the client {}; give the same on both sides", server,
                       client);
  }
}

/// "-n/--iters 0 is out of range: expected 1 to 1000000000", or nullopt.
std::optional<std::string> out_of_range(const char* option, std::uint64_t value, const Bounds& b) {
  if ((value >= b.min && value <= b.max) || (value == 0 && b.zero_means_default)) return std::nullopt;
  return fmt::format("{} {} is out of range: expected {} to {}{}", option, value, b.min, b.max, b.unit);
}

template <typename T>
std::optional<std::string> check_row(const TestParameter<T>& row, const TestSpec& spec) {
  const T& value = spec.*row.member;
  if constexpr (std::is_same_v<T, std::vector<std::uint64_t>>) {
    if (value.empty() || value.size() > kMaxSizes)
      return fmt::format("{} message sizes in one run: expected 1 to {}", value.size(), kMaxSizes);
    for (const auto size : value)
      if (auto problem = out_of_range(row.option, size, row.bounds)) return problem;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return out_of_range(row.option, value, row.bounds);
  }
  return std::nullopt;  // enums and flags: every decoded value is allowed
}

}  // namespace

std::optional<std::string> find_conflict(const TestSpec& server, const TestSpec& client) {
  if (server.operation != client.operation || server.measurement != client.measurement) {
    return "mismatched test: the server runs rdma_" + test_name(server) + ", the client rdma_" +
           test_name(client) + "; run the same binary on both sides";
  }
  std::optional<std::string> conflict;
  for_each_test_parameter([&](const auto& row) {
    if (conflict || row.agreement != Agreement::must_match) return;
    if (server.*row.member != client.*row.member)
      conflict = fmt::format("mismatched {}: {}", row.option,
                             mismatch_text(row, server.*row.member, client.*row.member));
  });
  return conflict;
}

TestSpec adopt_client_choice(const TestSpec& server, const TestSpec& client) {
  TestSpec adopted = server;
  for_each_test_parameter([&](const auto& row) {
    if (row.agreement == Agreement::adopt) adopted.*row.member = client.*row.member;
  });
  return adopted;
}

std::optional<std::string> find_out_of_range(const TestSpec& spec) {
  std::optional<std::string> problem;
  for_each_test_parameter([&](const auto& row) {
    if (!problem) problem = check_row(row, spec);
  });
  if (problem) return problem;
  // Limits that one parameter sets for another.
  if (spec.run_infinitely && spec.repeats > 1)
    return fmt::format("--repeat {} and --run-infinitely conflict: a soak already measures its one "
                       "size again and again, a period at a time, until stopped; give one of them",
                       spec.repeats);
  if (spec.post_list > spec.tx_depth)
    return fmt::format("-l/--post-list {} exceeds -t/--tx-depth {}: a chain must fit in the queue",
                       spec.post_list, spec.tx_depth);
  if (spec.cq_mod > spec.tx_depth)
    return fmt::format("-Q/--cq-mod {} exceeds -t/--tx-depth {}: a signaled write must fit in the "
                       "queue; lower -Q or raise -t",
                       spec.cq_mod, spec.tx_depth);
  if (spec.operation == Operation::send && spec.measurement == Measurement::latency &&
      spec.rx_depth == 1)
    return "-r/--rx-depth 1 is too small for rdma_send_lat: each side answers before it reposts "
           "the receive it used, so the next message needs a second one posted; give 2 or more";
  if (server_echoes(spec) && spec.rx_depth && spec.rx_depth < spec.tx_depth)
    return fmt::format("-r/--rx-depth {} is below -t/--tx-depth {}: an open-loop run (--rate) keeps "
                       "up to -t messages in flight, each needing a receive posted on both sides; "
                       "give -r {} or more, or none",
                       spec.rx_depth, spec.tx_depth, spec.tx_depth);
  return std::nullopt;
}

}  // namespace rdmabench
