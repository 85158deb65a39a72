#include "lab.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <sstream>
#include <thread>

namespace lab {

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

bool port_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

Device roce() { return {env_or("RXE_DEV", "rxe0"), env_or("RXE_IP", "10.0.2.15"), "RoCEv2"}; }
Device iwarp() { return {env_or("SIW_DEV", "siw0"), env_or("SIW_IP", "10.0.3.15"), "iWARP"}; }

namespace {
// Ports 20000-31999, below Linux's ephemeral range (32768 and up): no
// connection's own end takes a case's port, and a filter on a pair's ports
// (the fault matrix's cut link) matches that pair alone.
constexpr int kFirstPort = 20000, kPortPairs = 6000;
int port_slot = 0, port_slots = 1;
}  // namespace

void use_port_slot(int slot, int slots) {
  port_slot = slot;
  port_slots = slots;
}

int free_port_pair() {
  std::mt19937 rng(std::random_device{}());
  const int pairs = kPortPairs / port_slots;
  for (int tries = 0; tries < 1000; ++tries) {
    const int port = kFirstPort + 2 * (port_slot * pairs + static_cast<int>(rng() % pairs));
    if (port_free(port) && port_free(port + 1)) return port;
  }
  FAIL("no free TCP port pair");
  return 0;
}

std::string bin(const std::string& name) { return std::string(RDMABENCH_BIN_DIR) + "/" + name; }

std::unique_ptr<Process> run_alone(const Args& argv) {
  auto p = std::make_unique<Process>(argv);
  INFO(p->describe());
  REQUIRE(p->wait_for(std::chrono::seconds(30)).has_value());
  return p;
}

std::unique_ptr<Process> start_server(Args argv, std::vector<std::string> extra_env) {
  TempDir tmp;
  const auto ready = tmp.path / "ready";
  argv.insert(argv.end(), {"--ready-file", ready.string()});
  auto server = std::make_unique<Process>(argv, std::move(extra_env));
  INFO(server->describe());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(ready)) {
    REQUIRE(server->running());
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto line = nlohmann::json::parse(read_file(ready));
  REQUIRE(line.value("ready", false));
  return server;
}

Pair start_pair(const std::string& binary, const Args& server_args,
                const std::string& server_address, const Args& client_args) {
  Pair p;
  p.port = free_port_pair();
  Args s{bin(binary), "-p", std::to_string(p.port)};
  s.insert(s.end(), server_args.begin(), server_args.end());
  p.server = start_server(s);
  Args c{bin(binary), "-p", std::to_string(p.port)};
  c.insert(c.end(), client_args.begin(), client_args.end());
  c.push_back(server_address);
  p.client = std::make_unique<Process>(c);
  return p;
}

JsonPair run_pair_json(const std::string& binary, const Device& d, const Args& both,
                       const Args& client_only) {
  TempDir tmp;
  const auto json = (tmp.path / "client.json").string();
  Args server{"-d", d.name}, client{"-d", d.name, "--json", json};
  server.insert(server.end(), both.begin(), both.end());
  client.insert(client.end(), both.begin(), both.end());
  client.insert(client.end(), client_only.begin(), client_only.end());
  JsonPair result{run_pair_ok(binary, server, d.address, client), {}};
  INFO(result.pair.client->describe());
  const auto lines = read_json_lines(json);
  REQUIRE(lines.size() == 1);
  result.client = lines[0];
  return result;
}

BothJsonPair run_pair_both_json(const std::string& binary, const Device& d, const Args& both) {
  TempDir tmp;
  const auto client_json = (tmp.path / "client.json").string();
  const auto server_json = (tmp.path / "server.json").string();
  Args server{"-d", d.name, "--json", server_json}, client{"-d", d.name, "--json", client_json};
  server.insert(server.end(), both.begin(), both.end());
  client.insert(client.end(), both.begin(), both.end());
  BothJsonPair run{run_pair_ok(binary, server, d.address, client), {}, {}};
  INFO(run.pair.client->describe());
  INFO(run.pair.server->describe());
  const auto client_lines = read_json_lines(client_json);
  const auto server_lines = read_json_lines(server_json);
  REQUIRE(client_lines.size() == 1);
  REQUIRE(server_lines.size() == 1);
  run.client = client_lines[0];
  run.server = server_lines[0];
  return run;
}

JsonLines run_with_stall(const std::string& binary, const Device& d, const Args& client_extra,
                         bool stop_server) {
  using namespace std::chrono_literals;
  TempDir tmp;
  const auto client_json = (tmp.path / "client.json").string();
  const auto server_json = (tmp.path / "server.json").string();
  Args client{"-d", d.name, "--timeout", "5", "-D", "4", "--json", client_json};
  client.insert(client.end(), client_extra.begin(), client_extra.end());
  auto p = start_pair(binary, {"-d", d.name, "--timeout", "5", "--json", server_json}, d.address, client);
  INFO("client: " << p.client->describe());
  INFO("server: " << p.server->describe());
  REQUIRE(p.client->wait_for_output("#bytes", 30s));
  Process& stopped = stop_server ? *p.server : *p.client;
  std::this_thread::sleep_for(1500ms);
  stopped.kill(SIGSTOP);
  std::this_thread::sleep_for(200ms);
  stopped.kill(SIGCONT);
  REQUIRE(p.client->wait_for(60s) == 0);
  REQUIRE(p.server->wait_for(30s) == 0);
  const auto lines = read_json_lines(client_json);
  REQUIRE(lines.size() == 1);
  const auto server_lines = read_json_lines(server_json);
  REQUIRE(server_lines.size() == 1);
  return {lines[0], server_lines[0], p.client->out()};
}

Pair run_pair_ok(const std::string& binary, const Args& server_args,
                 const std::string& server_address, const Args& client_args, int seconds) {
  auto p = start_pair(binary, server_args, server_address, client_args);
  const auto limit = std::chrono::seconds(seconds);
  const auto client_rc = p.client->wait_for(limit);
  const auto server_rc = p.server->wait_for(std::chrono::seconds(10));
  INFO("client: " << p.client->describe());
  INFO("server: " << p.server->describe());
  REQUIRE(client_rc == 0);
  REQUIRE(server_rc == 0);
  return p;
}

std::vector<nlohmann::json> read_json_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

std::vector<std::vector<double>> table_rows(const std::string& text) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::vector<double> row;
    std::string field;
    while (fields >> field) {
      char* end = nullptr;
      const double v = std::strtod(field.c_str(), &end);
      if (end == field.c_str() || *end != '\0') {
        row.clear();
        break;
      }
      row.push_back(v);
    }
    if (row.size() >= 4) rows.push_back(row);
  }
  return rows;
}

}  // namespace lab
