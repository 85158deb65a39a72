// CPU lists in the kernel's format, and where the benchmark thread goes.
#include "catch2_compat.hpp"
#include <sched.h>

#include "rdmabench/system/cpu_affinity.hpp"
#include "rdmabench/verbs/error.hpp"
#include "test_helpers.hpp"

using namespace rdmabench;
using rdmabench::test::MessageContains;

TEST_CASE("cpu list: the kernel's format both ways", "[affinity]") {
  CHECK(parse_cpu_list("0-3,8-11") == CpuList{0, 1, 2, 3, 8, 9, 10, 11});
  CHECK(parse_cpu_list("5") == CpuList{5});
  CHECK(parse_cpu_list("") == CpuList{});
  CHECK(parse_cpu_list("3,1,1-2") == CpuList{1, 2, 3});
  CHECK(format_cpu_list({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11");
  CHECK(format_cpu_list({}) == "");
  REQUIRE_THROWS_MATCHES(parse_cpu_list("0-x"), Error, MessageContains("malformed at 'x'"));
  REQUIRE_THROWS_MATCHES(parse_cpu_list("4-2"), Error, MessageContains("backwards range '4-2'"));
}

TEST_CASE("cpu list: NUMA node CPUs from a recorded sysfs", "[affinity]") {
  const auto sys = std::filesystem::path(RDMABENCH_TEST_DATA) / "topology/sys";
  CHECK(numa_node_cpus(sys, 1) == CpuList{4, 5, 6, 7, 12, 13, 14, 15});
  CHECK(numa_node_cpus(sys, 7).empty());
}

TEST_CASE("placement: auto pins to the device's node, within the allowed CPUs", "[affinity]") {
  const auto p = choose_cpu_placement({}, "mlx5_0", 1, {4, 5, 6, 7}, {0, 1, 2, 3, 4, 5});
  CHECK(p.cpus == CpuList{4, 5});
  CHECK(p.device_numa_node == 1);
  CHECK(p.description == "CPUs 4-5 (NUMA node 1 of mlx5_0)");
}

TEST_CASE("placement: an unknown node or --numa off leaves the thread alone", "[affinity]") {
  const auto unknown = choose_cpu_placement({}, "rxe0", std::nullopt, {}, {0, 1});
  CHECK(unknown.cpus.empty());
  CHECK(unknown.description == "not pinned: the NUMA node of rxe0 is unknown");
  CpuPlacementRequest off;
  off.follow_device_numa = false;
  const auto p = choose_cpu_placement(off, "mlx5_0", 0, {0, 1}, {0, 1});
  CHECK(p.cpus.empty());
  CHECK_THAT(p.description, Catch::StartsWith("not pinned (NUMA placement off)"));
  const auto none_allowed = choose_cpu_placement({}, "mlx5_0", 1, {4, 5}, {0, 1});
  CHECK(none_allowed.cpus.empty());
  CHECK_THAT(none_allowed.description, Catch::Contains("(allowed: 0-1)"));
}

TEST_CASE("placement: --cpu wins, says when it is far from the device, and must be allowed",
          "[affinity]") {
  CpuPlacementRequest one;
  one.cpu = 2;
  const auto far = choose_cpu_placement(one, "mlx5_0", 1, {4, 5}, {0, 1, 2, 3, 4, 5});
  CHECK(far.cpus == CpuList{2});
  CHECK(far.description == "CPU 2 as asked; mlx5_0 is on NUMA node 1 (CPUs 4-5)");
  one.cpu = 9;
  REQUIRE_THROWS_MATCHES(choose_cpu_placement(one, "mlx5_0", 1, {4, 5}, {0, 1, 2, 3}), Error,
                         MessageContains("CPU 9 is not one this process may run on; valid CPUs: 0-3"));
}

TEST_CASE("placement: --cpu really pins the calling thread", "[affinity]") {
  cpu_set_t saved;
  REQUIRE(::sched_getaffinity(0, sizeof saved, &saved) == 0);
  CpuPlacementRequest last;
  last.cpu = allowed_cpus().back();
  // A device this machine lacks has no node: only --cpu can pin.
  CHECK(place_thread_near_device({}, "no_such_dev0").cpus.empty());
  CHECK(place_thread_near_device(last, "no_such_dev0").cpus == CpuList{*last.cpu});
  CHECK(allowed_cpus() == CpuList{*last.cpu});
  REQUIRE(::sched_setaffinity(0, sizeof saved, &saved) == 0);  // the other tests' CPUs back
}
