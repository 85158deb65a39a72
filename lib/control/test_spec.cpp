#include "rdmabench/control/test_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

namespace rdmabench {

std::uint64_t new_run_id() {
  std::random_device entropy;
  const std::uint64_t bits = (std::uint64_t{entropy()} << 32) ^ entropy();
  return bits % kMaxRunId + 1;
}

std::string test_name(const TestSpec& spec) {
  std::string name = spec.operation == Operation::read     ? "read"
                     : spec.operation == Operation::send   ? "send"
                     : spec.operation == Operation::atomic ? "atomic"
                                                           : "write";
  name += spec.measurement == Measurement::latency ? "_lat" : "_bw";
  return name;
}

std::string to_string(AtomicOp op) {
  return op == AtomicOp::compare_and_swap ? "CMP_AND_SWAP" : "FETCH_AND_ADD";
}

std::string to_string(LoadOp op) {
  return op == LoadOp::read ? "read" : op == LoadOp::send ? "send" : "write";
}

bool writes_with_immediate(const TestSpec& spec) {
  if (spec.operation != Operation::write) return false;
  return spec.write_with_imm || (spec.open_loop && spec.measurement == Measurement::latency);
}

bool uses_receives(const TestSpec& spec) {
  return spec.operation == Operation::send || writes_with_immediate(spec);
}

bool server_echoes(const TestSpec& spec) {
  return spec.open_loop && spec.measurement == Measurement::latency && uses_receives(spec);
}

bool server_is_passive(const TestSpec& spec) {
  if (spec.bidirectional || writes_with_immediate(spec)) return false;  // both sides take part
  return spec.operation == Operation::read || spec.operation == Operation::atomic ||
         (spec.operation == Operation::write && spec.measurement == Measurement::bandwidth);
}

bool server_spins_while_passive(const TestSpec& spec, bool transport_spins_by_default) {
  if (spec.measurement != Measurement::latency || !server_is_passive(spec)) return false;
  return spec.passive_wait == PassiveWait::spin ||
         (spec.passive_wait == PassiveWait::automatic && transport_spins_by_default);
}

std::string to_string(PassiveWait wait) {
  switch (wait) {
    case PassiveWait::automatic:
      return "auto";
    case PassiveWait::spin:
      return "spin";
    case PassiveWait::sleep:
      return "sleep";
  }
  return "unknown";
}

std::string to_string(ConnectMethod method) {
  return method == ConnectMethod::rdma_cm ? "rdma_cm" : "out-of-band TCP";
}

namespace {

/// --load-qps: a latency test's background load, on RC writes or reads.
std::optional<std::string> find_unsupported_load(const TestSpec& spec) {
  if (!spec.load_queue_pairs) return std::nullopt;
  if (spec.measurement != Measurement::latency)
    return "--load-qps applies to latency tests (rdma_*_lat), which it loads while they measure; rdma_" +
           test_name(spec) + " is a bandwidth test: use -q/--qp for more streams";
  if (spec.qp_type != QpType::rc)
    return "--load-qps and -c/--connection " + to_string(spec.qp_type) +
           " conflict: the load streams over RC queue pairs beside the latency's; use -c RC";
  return std::nullopt;
}

/// -g/--mcg: sends to a UD group, from one client QP to the server's
/// receivers. Said in multicast's own terms before the UD rules below.
std::optional<std::string> find_unsupported_multicast(const TestSpec& spec) {
  if (!spec.multicast_receivers) return std::nullopt;
  const std::string binary = "rdma_" + test_name(spec);
  if (spec.operation != Operation::send)
    return "-g/--mcg applies to send tests: a multicast group receives sends only; " + binary + " has none";
  if (spec.qp_type != QpType::ud)
    return "-g/--mcg and -c/--connection " + to_string(spec.qp_type) +
           " conflict: a multicast group delivers UD datagrams only; drop -c (-g implies UD) or give -c UD";
  if (spec.measurement == Measurement::latency && spec.multicast_receivers > 1)
    return fmt::format("-g/--mcg {}: {} answers each message from one receiver, so its group has one "
                       "receiving queue pair; give -g alone, or rdma_send_bw for {} receivers",
                       spec.multicast_receivers, binary, spec.multicast_receivers);
  if (spec.queue_pairs > 1)
    return fmt::format("-q/--qp {} and -g/--mcg conflict: the client sends to the group from one queue "
                       "pair; for {} receiving queue pairs on the server give -g {} (perftest's -g -q {})",
                       spec.queue_pairs, spec.queue_pairs, spec.queue_pairs, spec.queue_pairs);
  if (spec.connect == ConnectMethod::rdma_cm)
    return "-R/--rdma-cm and -g/--mcg conflict: multicast runs on UD queue pairs, connected by the TCP "
           "exchange (the server joins its group through rdma_cm by itself); drop -R";
  if (spec.bidirectional)
    return "-b/--bidirectional and -g/--mcg conflict: only the client sends to the group; drop -b";
  if (spec.duration_s && spec.measurement == Measurement::bandwidth)
    return "-D/--duration and -g/--mcg conflict: the receivers of a timed run over UD cannot tell how "
           "many messages were sent, so could not report the loss; give -n";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> find_unsupported(const TestSpec& spec) {
  if (auto multicast = find_unsupported_multicast(spec)) return multicast;
  if (auto load = find_unsupported_load(spec)) return load;
  // The command line refuses it by the table's row; a spec made otherwise, here.
  if (spec.use_srq && spec.operation != Operation::send)
    return "--use-srq applies to send tests (rdma_send_bw and rdma_send_lat); rdma_" + test_name(spec) +
           " is not one of them";
  const std::string c = "-c/--connection " + to_string(spec.qp_type);
  const bool one_sided = spec.operation == Operation::read || spec.operation == Operation::atomic;
  if (spec.qp_type == QpType::uc && one_sided)
    return "rdma_" + test_name(spec) + " cannot run with " + c +
           ": UC queue pairs carry sends and RDMA writes, not reads or atomics; use -c RC";
  if (spec.qp_type == QpType::ud && spec.operation != Operation::send)
    return "rdma_" + test_name(spec) + " cannot run with " + c +
           ": UD queue pairs carry only sends; use -c RC (or UC for writes)";
  if (spec.qp_type != QpType::rc && server_echoes(spec))
    return "--rate and " + c + " conflict: an open-loop rdma_" + test_name(spec) +
           " matches each answer to its message by arrival order, which only RC keeps (UC and UD "
           "may lose a message); use -c RC";
  if (spec.qp_type != QpType::rc && spec.connect == ConnectMethod::rdma_cm)
    return "-R/--rdma-cm and " + c +
           " conflict: rdmabench connects only RC queue pairs with rdma_cm; drop -R (UC and UD "
           "connect by the TCP exchange)";
  // An unreliable receiver of sends counts arrivals against the count the
  // sender posts, on one QP (see lib/loops/unreliable_receive.cpp).
  const bool unreliable_receiver = spec.qp_type != QpType::rc && spec.operation == Operation::send &&
                                   spec.measurement == Measurement::bandwidth;
  if (unreliable_receiver && spec.queue_pairs > 1)
    return fmt::format("-q/--qp {} and {} conflict: send bandwidth over unreliable queue pairs "
                       "runs on one QP here; drop -q",
                       spec.queue_pairs, c);
  if (unreliable_receiver && spec.bidirectional)
    return "-b/--bidirectional and " + c +
           " conflict: a side that also sends over unreliable queue pairs could wait forever for a "
           "lost message; use -c RC for -b";
  if (unreliable_receiver && spec.duration_s)
    return "-D/--duration and " + c +
           " conflict: the receiver of a timed run over unreliable queue pairs cannot tell how "
           "many messages were sent, so it could not report the loss; give -n";
  return std::nullopt;
}

std::uint32_t signal_interval(const TestSpec& spec, std::uint64_t bytes) {
  if (spec.cq_mod) return spec.cq_mod;
  // Three quarters of the queue per completion, at most 100 (perftest's
  // default): leaving a quarter of the queue free keeps it busy while the
  // completion is reaped. Selective signaling saves completions on small
  // messages; on large ones a completion each costs nothing, while siw sends
  // an unsignaled message of a page or more by zero-copy sendpage, the slow
  // path over loopback (docs/methodology.md#selective-signaling). Hence at least one completion per 64 KiB, which also keeps an 8 MiB
  // sweep on a slow fabric from going seconds without one (the watchdog
  // would take that for a stuck peer).
  const auto by_queue = std::clamp<std::uint32_t>(spec.tx_depth * 3 / 4, 1, 100);
  const auto by_bytes =
      std::max<std::uint64_t>(1, kMaxBytesPerSignal / std::max<std::uint64_t>(bytes, 1));
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(by_queue, by_bytes));
}

std::uint32_t warmup_for_size(const TestSpec& spec, std::size_t size_index) {
  return size_index == 0 || spec.warmup_each_size ? spec.warmup : 0;
}

std::uint64_t largest_size(const TestSpec& spec) {
  return spec.sizes.empty() ? 0 : *std::max_element(spec.sizes.begin(), spec.sizes.end());
}

std::vector<std::uint64_t> all_sizes() {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = 2; s <= (8u << 20); s *= 2) sizes.push_back(s);
  return sizes;
}

}  // namespace rdmabench
