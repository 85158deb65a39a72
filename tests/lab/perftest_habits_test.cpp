// A script written against perftest's usual flags runs unchanged against
// our binary: ib_write_bw's command line, with the binary renamed.
#include "lab.hpp"

using namespace lab;

TEST_CASE("ib_write_bw's usual command line runs unchanged as rdma_write_bw",
          "[lab][perftest-habits]") {
  const auto d = roce();
  // -x 1: the lab's RoCEv2 GID of rxe0's IPv4 address (tools/rdma-lab).
  const Args perftest_flags{"-d", d.name,  "-x", "1",   "-F", "--report_gbits",
                            "-s", "65536", "-n", "5000"};
  const auto p = run_pair_ok("rdma_write_bw", perftest_flags, d.address, perftest_flags);
  CHECK_THAT(p.client->out(), Catch::Contains("BW average[Gb/sec]"));
  CHECK_THAT(p.client->out(), Catch::Contains("65536"));
  // -F is taken, and says why it changes nothing here.
  CHECK_THAT(p.client->err() + p.client->out(),
             Catch::Contains("-F (perftest's) is taken: the CPU frequency check only warns here"));
}
