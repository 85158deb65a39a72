#pragma once
// What the lab tier needs: which devices to use, free ports, and a
// server/client pair runner. Inside tools/rdma-lab the devices are rxe0
// (RoCEv2) and siw0 (iWARP); on a real RDMA host set RXE_DEV/RXE_IP or
// SIW_DEV/SIW_IP to run the same cases there.

#include "catch2_compat.hpp"
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.hpp"

namespace lab {

struct Device {
  std::string name;     ///< rxe0
  std::string address;  ///< an IP of its network interface
  std::string kind;     ///< expected transport: RoCEv2, iWARP
};
Device roce();
Device iwarp();

/// Even TCP port p with p and p + 1 free (control and rdma_cm).
int free_port_pair();

/// From now on free_port_pair picks from the `slot`th of `slots` equal
/// parts of its range: processes that run side by side (the fault matrix's
/// cells) each take a slot, so two can never pick the same free port.
void use_port_slot(int slot, int slots);

std::string bin(const std::string& name);  ///< path of one of our binaries

using Args = std::vector<std::string>;

/// Starts server `argv` with --ready-file and requires it to write that file
/// (it listens then) within 30 s; the one readiness signal the lab tests use.
/// `extra_env` as for Process.
std::unique_ptr<Process> start_server(Args argv, std::vector<std::string> extra_env = {});

/// Runs one binary alone (a client with nothing listening, or a server
/// that must refuse); requires it to finish within 30 s and returns it.
std::unique_ptr<Process> run_alone(const Args& argv);

/// A server started and ready for a client.
struct Pair {
  std::unique_ptr<Process> server;
  std::unique_ptr<Process> client;
  int port = 0;
};

/// Starts `binary` as server with `server_args` (plus -p), waits until it
/// listens, then starts the client against `server_address` with
/// `client_args`. Neither is waited for.
Pair start_pair(const std::string& binary, const Args& server_args, const std::string& server_address,
                const Args& client_args);

/// start_pair, then waits for both (limit `seconds`) and requires both to
/// exit 0.
Pair run_pair_ok(const std::string& binary, const Args& server_args,
                 const std::string& server_address, const Args& client_args, int seconds = 120);

std::vector<nlohmann::json> read_json_lines(const std::string& path);

/// A finished pair and the client's one JSON line (--json into a temp file).
struct JsonPair {
  Pair pair;
  nlohmann::json client;
};

/// run_pair_ok on device `d` with `both` on both sides and `client_only`
/// on the client; requires exactly one JSON line from the client.
JsonPair run_pair_json(const std::string& binary, const Device& d, const Args& both,
                       const Args& client_only = {});

/// A finished pair and both sides' one JSON line.
struct BothJsonPair {
  Pair pair;
  nlohmann::json client, server;
};

/// run_pair_ok on device `d` with `both` on both sides, each side writing
/// --json into a temp file; requires exactly one JSON line from each.
BothJsonPair run_pair_both_json(const std::string& binary, const Device& d, const Args& both);

/// Both sides' JSON lines of one run, and the client's console.
struct JsonLines {
  nlohmann::json client, server;
  std::string client_out;
};

/// A `binary` pair on `d` with `client_extra`, one side stopped (SIGSTOP)
/// for 200 ms about 1.5 s into the client's -D 4 run: the server when
/// `stop_server`, else the client. Both must exit 0, with one JSON line each.
JsonLines run_with_stall(const std::string& binary, const Device& d, const Args& client_extra,
                         bool stop_server);

/// Numeric rows of our console table (lines that start with the byte count).
std::vector<std::vector<double>> table_rows(const std::string& text);

}  // namespace lab
