// ibv_query_gid_table returns every port's entries at once: the buffer
// needs room for all of them, or a multi-port device fails the query.

#include "catch2_compat.hpp"

#include "rdmabench/verbs/device.hpp"

using rdmabench::gid_table_capacity;

TEST_CASE("GID table: room for every port's entries, which the query returns at once", "[verbs]") {
  CHECK(gid_table_capacity({16}) == 16);
  // A two-port Chelsio reports one GID per port: port 2's entry needs room too.
  CHECK(gid_table_capacity({1, 1}) == 2);
  CHECK(gid_table_capacity({256, 256}) == 512);
  // Never an empty buffer (a port may report no table at all).
  CHECK(gid_table_capacity({}) == 1);
  CHECK(gid_table_capacity({0, -1}) == 1);
}
