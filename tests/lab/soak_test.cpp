// A soak (--run-infinitely) on a real soft device: SIGINT to the client
// in its third period ends the run with that period cut short, and both
// sides write every period's record and the summary, and exit 0.
#include <signal.h>

#include <chrono>
#include <thread>

#include "lab.hpp"

using namespace lab;
using namespace std::chrono_literals;

TEST_CASE("soak: SIGINT mid-period ends both sides with every period and the summary",
          "[lab][rxe][soak]") {
  const auto d = roce();
  TempDir tmp;
  const auto client_json = (tmp.path / "client.json").string();
  const auto server_json = (tmp.path / "server.json").string();
  auto p = start_pair("rdma_write_bw", {"-d", d.name, "--json", server_json}, d.address,
                      {"-d", d.name, "-s", "65536", "--run-infinitely", "--report-every", "2",
                       "--json", client_json});
  INFO("client: " << p.client->describe());
  INFO("server: " << p.server->describe());
  REQUIRE(p.client->wait_for_output("soak period 2", 30s));
  std::this_thread::sleep_for(500ms);  // into the third period's 2 s
  p.client->kill(SIGINT);
  REQUIRE(p.client->wait_for(30s) == 0);
  REQUIRE(p.server->wait_for(30s) == 0);

  for (const auto& [path, side] : {std::pair{client_json, "client"}, std::pair{server_json, "server"}}) {
    INFO(side);
    const auto lines = read_json_lines(path);
    REQUIRE(lines.size() == 4);  // periods 1 to 3, then the summary
    for (int k = 0; k < 3; ++k) CHECK(lines[k].at("soak").at("period") == k + 1);
    const auto& summary = lines[3].at("soak");
    CHECK(summary.at("summary") == true);
    CHECK(summary.at("periods") == 3);
    CHECK(lines[3].contains("counters"));
  }
  const auto client = read_json_lines(client_json);
  CHECK(client[0].at("soak").at("cut_short") == false);
  CHECK(client[2].at("soak").at("cut_short") == true);
  // A whole period's window runs from its first poll to the first poll past
  // its 2 s: about 2 s, give or take how long the emulated guest holds the
  // process off its CPU at either end (CI saw 1.795 s). The cut one ends at
  // the next checkpoint after the signal, about 0.5 s in. 1.5 s parts them
  // with half a second to spare on each side.
  CHECK(client[1].at("bandwidth").at("seconds").get<double>() > 1.5);
  CHECK(client[2].at("bandwidth").at("seconds").get<double>() < 1.5);
  CHECK(client[3].at("soak").at("stopped_by") == "SIGINT on this side");
  CHECK(client[3].at("bandwidth").at("messages").get<double>() ==
        client[0].at("bandwidth").at("messages").get<double>() +
            client[1].at("bandwidth").at("messages").get<double>() +
            client[2].at("bandwidth").at("messages").get<double>());
  CHECK(read_json_lines(server_json)[3].at("soak").at("stopped_by") == "a stop signal on the peer");
  CHECK_THAT(p.client->out(), Catch::Contains("soak: 3 periods, stopped by SIGINT on this side"));
}
