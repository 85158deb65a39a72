// -a sweeps 2 B to 8 MiB in one connection, on every device and method.
#include "lab.hpp"

using namespace lab;

namespace {

void sweep(const std::string& binary, const Device& d, const Args& extra) {
  TempDir tmp;
  const auto json = (tmp.path / "sweep.json").string();
  // Few iterations: an 8 MiB message takes ~0.1 s in the emulated guest.
  Args server{"-d", d.name}, client{"-d", d.name, "-a", "-n", "10", "--warmup", "2", "--json", json};
  server.insert(server.end(), extra.begin(), extra.end());
  client.insert(client.end(), extra.begin(), extra.end());
  auto p = run_pair_ok(binary, server, d.address, client, 300);
  INFO(p.client->describe());
  const auto lines = read_json_lines(json);
  REQUIRE(lines.size() == 23);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i].at("bytes") == (2ull << i));
    CHECK(lines[i].at("iterations") == 10);
    CHECK(lines[i].at("warmup_iterations") == 2);
  }
  CHECK(table_rows(p.client->out()).size() == 23);
}

/// Without --warmup a bandwidth sweep warms its first size only, and both
/// sides agree on it (a send_bw server counts the warm-up messages it reaps).
void sweep_with_default_warmup(const std::string& binary, const Device& d) {
  TempDir tmp;
  const auto client_json = (tmp.path / "client.json").string();
  const auto server_json = (tmp.path / "server.json").string();
  Args server{"-d", d.name, "--json", server_json}, client{"-d", d.name, "-a", "-n", "10", "--json", client_json};
  auto p = run_pair_ok(binary, server, d.address, client, 300);
  INFO(p.client->describe());
  for (const auto& json : {client_json, server_json}) {
    INFO(json);
    const auto lines = read_json_lines(json);
    REQUIRE(lines.size() == 23);
    CHECK(lines[0].at("warmup_iterations") == 128);  // one queue's worth: the default -t
    for (std::size_t i = 1; i < lines.size(); ++i) CHECK(lines[i].at("warmup_iterations") == 0);
  }
}

}  // namespace

TEST_CASE("write_lat sweep -a on RoCEv2", "[lab][rxe][sweep]") { sweep("rdma_write_lat", roce(), {}); }
TEST_CASE("write_bw sweep -a on RoCEv2", "[lab][rxe][sweep]") { sweep("rdma_write_bw", roce(), {}); }
TEST_CASE("write_lat sweep -a on RoCEv2 with rdma_cm", "[lab][rxe][sweep]") {
  sweep("rdma_write_lat", roce(), {"-R"});
}
TEST_CASE("write_bw sweep -a on RoCEv2 with rdma_cm", "[lab][rxe][sweep]") {
  sweep("rdma_write_bw", roce(), {"-R"});
}
TEST_CASE("write_lat sweep -a on iWARP", "[lab][siw][sweep]") { sweep("rdma_write_lat", iwarp(), {}); }
TEST_CASE("write_bw sweep -a on iWARP", "[lab][siw][sweep]") { sweep("rdma_write_bw", iwarp(), {}); }
TEST_CASE("read_lat sweep -a on RoCEv2", "[lab][rxe][sweep][read]") { sweep("rdma_read_lat", roce(), {}); }
TEST_CASE("read_bw sweep -a on iWARP", "[lab][siw][sweep][read]") { sweep("rdma_read_bw", iwarp(), {}); }
TEST_CASE("send_lat sweep -a on RoCEv2", "[lab][rxe][sweep][send]") { sweep("rdma_send_lat", roce(), {}); }
TEST_CASE("send_bw sweep -a on iWARP", "[lab][siw][sweep][send]") { sweep("rdma_send_bw", iwarp(), {}); }
TEST_CASE("send_bw sweep -a on iWARP warms its first size only", "[lab][siw][sweep][send]") {
  sweep_with_default_warmup("rdma_send_bw", iwarp());
}
TEST_CASE("write_bw sweep -a on RoCEv2 warms its first size only", "[lab][rxe][sweep]") {
  sweep_with_default_warmup("rdma_write_bw", roce());
}
