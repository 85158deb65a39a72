// -g/--mcg: sends to a UD multicast group on rxe (RoCEv2), whose server
// joins the group through rdma_cm and attaches its receivers; each
// receiver's delivery is reported, its loss counted, never hidden. And
// siw's refusal: iWARP has no UD, so no multicast.
#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

namespace {

/// `binary` on rxe0 with `both` on both sides; each side writes one JSON line.
BothJsonPair multicast_pair(const std::string& binary, const Args& both) {
  return run_pair_both_json(binary, roce(), both);
}

}  // namespace

TEST_CASE("multicast on rxe: send_bw to two receivers, each one's delivery, and send_lat through the group",
          "[lab][rxe][ud][multicast]") {
  const std::uint64_t iterations = 1000, warmup = 100;
  const auto bw = multicast_pair("rdma_send_bw", {"-g", "2", "-s", "512", "-n", std::to_string(iterations),
                                                  "--warmup", std::to_string(warmup)});
  INFO(bw.pair.server->out());
  const auto& group = bw.server.at("context").at("multicast");
  CHECK(group.at("receivers") == 2);
  CHECK_THAT(group.at("group").get<std::string>(), Catch::StartsWith("::ffff:239.255."));
  // The client sends to the group the server joined, from one QP.
  CHECK(bw.client.at("context").at("multicast").at("group") == group.at("group"));
  CHECK(bw.client.at("context").at("connection_type") == "UD");
  CHECK(bw.client.at("context").at("queue_pairs") == 1);
  CHECK(bw.server.at("context").at("queue_pairs") == 2);
  CHECK(bw.client.at("bandwidth").at("messages") == iterations);
  // Each receiver is owed every message sent to the group; what it lost is counted.
  const std::uint64_t sent = iterations + warmup;
  const auto& delivery = bw.server.at("delivery");
  const auto& receivers = delivery.at("per_receiver");
  REQUIRE(receivers.size() == 2);
  std::uint64_t received = 0;
  for (const auto& r : receivers) {
    INFO(r.dump());
    CHECK(r.at("sent") == sent);
    const auto own = r.at("received").get<std::uint64_t>();
    CHECK(own > 0);  // the group reached this receiver at all
    CHECK(own <= sent);
    CHECK(r.at("lost") == sent - own);
    CHECK(r.at("loss_percent").get<double>() == Approx(100.0 * static_cast<double>(sent - own) / sent));
    received += own;
  }
  CHECK(receivers[0].at("qp_number") != receivers[1].at("qp_number"));
  CHECK(delivery.at("sent") == 2 * sent);
  CHECK(delivery.at("received") == received);
  CHECK(delivery.at("lost") == 2 * sent - received);
  CHECK_THAT(bw.pair.server->out(), Catch::Contains("copies arrived (" + std::to_string(sent) +
                                                    " messages sent to the group x 2 receivers;") &&
                                        Catch::Contains("receiver 1 (QP ") && Catch::Contains("receiver 2 (QP "));

  // A ping-pong: the client's pings go through the group, the answers come back unicast.
  const auto lat = multicast_pair("rdma_send_lat", {"-g", "-s", "64", "-n", "200"});
  CHECK(lat.client.at("context").at("multicast").at("receivers") == 1);
  CHECK(lat.client.at("latency").at("samples") == 200);
  CHECK(lat.client.at("latency").at("min_us").get<double>() > 0);
}

TEST_CASE("multicast on siw is refused before connecting, on both sides: iWARP has no UD", "[lab][siw][multicast]") {
  const Device d = iwarp();
  const auto port = std::to_string(free_port_pair());
  // Nothing listens on the port: reaching the network would be another error.
  auto client = run_alone({bin("rdma_send_bw"), "-d", d.name, "-g", "-s", "512", "-p", port, d.address});
  auto server = run_alone({bin("rdma_send_bw"), "-d", d.name, "-g", "-p", port});
  for (auto* p : {client.get(), server.get()}) {
    INFO(p->describe());
    CHECK(p->wait_for(0ms) == 1);
    CHECK_THAT(p->err(), Catch::Contains(d.name + " is iWARP: no UD, so no multicast (-g/--mcg); use rxe/RoCE or "
                                                  "InfiniBand"));
  }
}
