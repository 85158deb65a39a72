// --pkey-index against the port's P_Key table, and with rdma_cm.

#include "catch2_compat.hpp"

#include <string>

#include "control/session_internal.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

namespace {

PortAttributes port_with_pkeys(std::uint16_t pkeys) {
  PortAttributes p;
  p.device = "mlx5_0";
  p.port = 1;
  p.active_mtu_bytes = 4096;
  p.pkey_table_length = pkeys;
  return p;
}

void no_notice(const std::string&) {}

}  // namespace

TEST_CASE("pkey index: --pkey-index must exist in the port's P_Key table", "[verbs]") {
  QpOptions options;
  options.pkey_index = 127;
  CHECK_NOTHROW(detail::check_qp_options(options, port_with_pkeys(128), ConnectMethod::tcp_exchange, no_notice));
  options.pkey_index = 128;
  REQUIRE_THROWS_MATCHES(
      detail::check_qp_options(options, port_with_pkeys(128), ConnectMethod::tcp_exchange, no_notice), Error,
      MessageContains("--pkey-index 128 does not exist on mlx5_0 port 1: its P_Key table holds 128 entries "
                      "(valid indexes 0-127)"));
  // Index 0 is the default, and fine even where a device reports no table.
  options.pkey_index = 0;
  CHECK_NOTHROW(detail::check_qp_options(options, port_with_pkeys(0), ConnectMethod::tcp_exchange, no_notice));
}

TEST_CASE("pkey index: with rdma_cm --pkey-index is said to be ignored", "[verbs]") {
  QpOptions options;
  options.pkey_index = 1;
  std::string said;
  detail::check_qp_options(options, port_with_pkeys(2), ConnectMethod::rdma_cm,
                           [&](const std::string& s) { said += s; });
  CHECK_THAT(said, Catch::Contains("--pkey-index is ignored with rdma_cm"));
}
