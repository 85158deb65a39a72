// Shared receive queues (--use-srq) on real kernel RDMA: on RoCEv2 (rxe0)
// and iWARP (siw0), send_bw over four QPs takes every receive from one SRQ
// on each side, and every QP's messages arrive through it (the server's
// per-QP figures); send_lat runs on one too (on rxe0 only: its receive path
// is the bandwidth test's, and the lab's time is dear). Both sides' JSON names the
// SRQ and its depth; rxe counts receiver-not-ready NAKs, which the server
// reports per size (zero or not: the run reposts as it reaps), while siw,
// whose iWARP has no RNR, reports none.
#include "lab.hpp"

using namespace lab;

namespace {

/// `binary` with --use-srq and `extra` on both sides of `d`; both write JSON.
BothJsonPair srq_pair(const std::string& binary, const Device& d, const Args& extra) {
  Args both{"--use-srq", "--timeout", "5"};
  both.insert(both.end(), extra.begin(), extra.end());
  return run_pair_both_json(binary, d, both);
}

/// Both sides' context names one SRQ shared by `qps` QPs, as deep as -r x -q.
void check_srq_context(const BothJsonPair& run, int qps, int rx_depth) {
  for (const auto* j : {&run.client, &run.server}) {
    const auto& c = j->at("context");
    INFO(c.dump());
    CHECK(c.at("parameters").at("use_srq") == true);
    REQUIRE(c.at("srq").is_object());
    CHECK(c.at("srq").at("depth") == qps * rx_depth);
    CHECK(c.at("srq").at("queue_pairs") == qps);
  }
  const std::string line = "# SRQ             : depth " + std::to_string(qps * rx_depth) + " shared by " +
                           std::to_string(qps) + (qps == 1 ? " QP" : " QPs");
  CHECK_THAT(run.pair.server->out(), Catch::Contains(line));
  CHECK_THAT(run.pair.client->out(), Catch::Contains(line));
}

}  // namespace

TEST_CASE("shared receive queue: send_bw -q 4 and send_lat with --use-srq", "[lab][srq]") {
  for (const auto& d : {roce(), iwarp()}) {
    SECTION(d.name) {
      // iWARP has no RNR retry: a sender that runs ahead of an SRQ ends the
      // connection, so siw keeps its default depth (4096 per QP, given here).
      const int rx_depth = d.kind == "iWARP" ? 4096 : 256;
      const auto bw = srq_pair("rdma_send_bw", d,
                               {"-q", "4", "-r", std::to_string(rx_depth), "-n", "500", "-s", "4096"});
      check_srq_context(bw, 4, rx_depth);
      // The server received through the one SRQ, on every QP.
      const auto& received = bw.server.at("bandwidth");
      INFO(received.dump());
      CHECK(received.at("messages") == 4 * 500 - 1);
      REQUIRE(received.at("per_qp_average_MBps").size() == 4);
      for (const auto& mbps : received.at("per_qp_average_MBps")) CHECK(mbps.get<double>() > 0);
      if (d.kind == "iWARP") {
        CHECK_FALSE(bw.server.contains("receiver_not_ready"));
      } else {
        const auto& rnr = bw.server.at("receiver_not_ready");
        CHECK(rnr.at("naks_sent").is_number_unsigned());
        CHECK(rnr.at("naks_received").is_number_unsigned());
        CHECK_THAT(bw.pair.server->out(), Catch::Contains("receiver not ready: "));
      }

      if (d.kind != "iWARP") {  // once is enough: the ping-pong's receives take the same path on both
        const auto lat = srq_pair("rdma_send_lat", d, {"-r", "16", "-n", "200", "-s", "64"});
        check_srq_context(lat, 1, 16);
        CHECK(lat.client.at("latency").at("samples") == 200);
        CHECK(lat.client.at("latency").at("min_us").get<double>() > 0);
      }
    }
  }
}
