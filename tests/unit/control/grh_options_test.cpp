// --flow-label and --hop-limit go into the GRH the attribute exchange puts
// in each address vector: refused, naming them, where none of ours is set
// (iWARP has no GRH; rdma_cm's is the kernel's; InfiniBand carries one only
// with -x), and taken everywhere else.

#include "catch2_compat.hpp"

#include "control/session_internal.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

namespace {

Transport fabric(TransportKind kind, bool global_route) {
  Transport t;
  t.kind = kind;
  t.global_route = global_route;
  return t;
}

QpOptions grh_options(std::uint32_t flow_label, std::uint8_t hop_limit) {
  QpOptions options;
  options.flow_label = flow_label;
  options.hop_limit = hop_limit;
  return options;
}

}  // namespace

TEST_CASE("GRH options: taken on InfiniBand with -x, and the flow label on RoCE, by attribute exchange",
          "[control]") {
  const auto roce = fabric(TransportKind::roce_v2, true);
  const auto ib_routed = fabric(TransportKind::infiniband, true);
  CHECK_NOTHROW(detail::check_grh_options(grh_options(0x12345, 0), ConnectMethod::tcp_exchange, &roce));
  CHECK_NOTHROW(detail::check_grh_options(grh_options(1, 7), ConnectMethod::tcp_exchange, &ib_routed));
  CHECK_NOTHROW(detail::check_grh_options(grh_options(0, 1), ConnectMethod::tcp_exchange, nullptr));
}

TEST_CASE("GRH options: a hop limit on RoCE is refused, naming the route's as the way", "[control]") {
  for (auto kind : {TransportKind::roce_v2, TransportKind::roce_v1}) {
    const auto roce = fabric(kind, true);
    REQUIRE_THROWS_MATCHES(detail::check_grh_options(grh_options(0, 7), ConnectMethod::tcp_exchange, &roce), Error,
                           MessageContains("--hop-limit 7 cannot be set on RoCE: the kernel gives every RoCE "
                                           "queue pair the hop limit (the IPv4 TTL) of its IP route"));
    REQUIRE_THROWS_MATCHES(detail::check_grh_options(grh_options(0, 7), ConnectMethod::tcp_exchange, &roce), Error,
                           MessageContains("ip route change ... hoplimit N"));
  }
}

TEST_CASE("GRH options: left out, nothing is refused anywhere", "[control]") {
  const auto siw = fabric(TransportKind::iwarp, false);
  CHECK_NOTHROW(detail::check_grh_options(QpOptions{}, ConnectMethod::rdma_cm, &siw));
}

TEST_CASE("GRH options: refused where no GRH of ours is sent, saying why", "[control]") {
  const auto siw = fabric(TransportKind::iwarp, false);
  REQUIRE_THROWS_MATCHES(detail::check_grh_options(grh_options(5, 0), ConnectMethod::rdma_cm, &siw), Error,
                         MessageContains("--flow-label set fields of the GRH, and iWARP packets have none"));
  REQUIRE_THROWS_MATCHES(detail::check_grh_options(grh_options(0, 9), ConnectMethod::rdma_cm, nullptr), Error,
                         MessageContains("--hop-limit apply to queue pairs connected by attribute exchange: "
                                         "with -R/--rdma-cm the kernel's rdma_cm builds the GRH"));
  const auto roce = fabric(TransportKind::roce_v2, true);
  REQUIRE_THROWS_MATCHES(detail::check_grh_options(grh_options(5, 9), ConnectMethod::rdma_cm, &roce), Error,
                         MessageContains("--flow-label and --hop-limit apply to queue pairs connected by"));
  const auto ib = fabric(TransportKind::infiniband, false);
  REQUIRE_THROWS_MATCHES(detail::check_grh_options(grh_options(5, 0), ConnectMethod::tcp_exchange, &ib), Error,
                         MessageContains("which InfiniBand packets carry only when routed globally: give -x"));
}
