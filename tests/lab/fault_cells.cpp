// One cell of the fault matrix: start a pair, let the hurt side stop itself
// at the cell's phase (a pause point), do the harm, and time the survivor.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <thread>

#include "fault_matrix.hpp"
#include "faults.hpp"

namespace lab::faults {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
const auto kSurvivorLimit = std::chrono::milliseconds(
    static_cast<int>((kTimeoutSeconds + kSlackSeconds) * 1000));

bool is_bandwidth(const Setup& s) { return s.binary.ends_with("_bw"); }

/// One side's command line before its count and address: the binary on
/// `port`, the device, the timeout and the setup's own options.
Args command(const Setup& s, int port, int timeout_s) {
  Args a{bin(s.binary), "-p", std::to_string(port), "-d", s.device.name, "--timeout", std::to_string(timeout_s)};
  a.insert(a.end(), s.both.begin(), s.both.end());
  return a;
}

/// The client's count: mid-run needs a run the pause lands inside (the lab
/// never finishes 10^7 iterations; a run that `must_end` lasts 2 s), the
/// other phases a run that ends.
Args count_args(const Setup& s, const std::string& phase, bool must_end) {
  for (const auto& a : s.both)
    if (a == "-D") return {};
  if (phase == "mid-run" && must_end) return {"-D", "2"};  // ends whatever the lab's pace
  if (phase != "mid-run") return {"-n", "200"};
  Args a{"-n", "10000000"};
  if (is_bandwidth(s)) a.insert(a.end(), {"-s", "2"});
  return a;
}

/// The last line a process wrote to stderr, shortened for a table cell.
std::string last_error_line(const Process& p) {
  std::string err = p.err();
  while (!err.empty() && err.back() == '\n') err.pop_back();
  std::string line = err.substr(err.find_last_of('\n') + 1);
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  return line;
}

/// "exit 1 after 2.3 s: <message>" for one side.
std::string describe_exit(const char* who, const std::optional<int>& rc, double seconds, const Process& p) {
  if (!rc) return std::string(who) + " still running when the test stopped waiting";
  char head[96];
  std::snprintf(head, sizeof head, "%s exit %d after %.1f s", who, *rc, seconds);
  const std::string message = *rc == 0 ? "" : last_error_line(p);
  return message.empty() ? head : std::string(head) + ": " + message;
}

struct Running {
  TempDir tmp;
  std::unique_ptr<Process> server, client;
  int port = 0;
  std::filesystem::path pause_file() const { return tmp.path / "paused"; }
};

/// Starts the pair; the side `paused` (if any) stops itself at `phase`.
void start(Running& r, const Setup& s, const std::string& phase, std::optional<Side> paused,
           int timeout_s, bool must_end = false) {
  r.port = free_port_pair();
  const auto env = [&](Side side) {
    return paused == side ? pause_environment(phase, r.pause_file()) : std::vector<std::string>{};
  };
  r.server = start_server(command(s, r.port, timeout_s), env(Side::server));
  Args client = command(s, r.port, timeout_s);
  const Args count = count_args(s, phase, must_end);
  client.insert(client.end(), count.begin(), count.end());
  client.push_back(s.device.address);
  r.client = std::make_unique<Process>(client, env(Side::client));
}

std::string fmt_seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", s);
  return text;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The one cell whose survivor cannot leave in time, whatever it does: an
/// iWARP server stopped before it accepts. The client gives up within
/// --timeout and says so, but destroying its half-made connection waits in
/// the kernel (iw_cm, uninterruptibly) until siw's MPA reply timeout ends it.
bool exit_bounded_by_kernel(const Cell& c) {
  return c.setup.device.kind == "iWARP" && c.phase == "handshake" && c.side == Side::server &&
         c.fault == Fault::sigstop;
}
constexpr auto kMpaReplyTimeout = std::chrono::seconds(10);  // siw_cm.c MPAREP_TIMEOUT

/// A server whose client failed during the handshake, after its hello was
/// accepted: it ends that client's run and waits for the next one.
bool server_serves_on(const Cell& c, bool survivor_is_server) {
  return survivor_is_server && c.phase == "handshake";
}

/// The server of such a cell: it names the failed run within `limit` and
/// is still waiting for a client.
bool check_server_serves_on(Process& server, std::chrono::milliseconds limit, Clock::time_point t0,
                            Outcome& o) {
  const bool said = server.wait_for_output("still waiting for a client", limit);
  o.seconds = seconds_since(t0);
  const bool named = names_what_happened(server.err());
  const bool waiting = server.running();
  o.observed += std::string(o.observed.empty() || o.observed.back() == ' ' ? "" : "; ") +
                (said ? "server ended that run after " + fmt_seconds(o.seconds) + " s" +
                            (named ? ", naming why" : ", naming nothing") +
                            (waiting ? ", and waits for the next client" : ", and exited")
                      : "server said nothing in " + fmt_seconds(o.seconds) + " s");
  return said && named && waiting;
}

/// SIGKILL, SIGSTOP or a cut link, at the phase where the hurt side paused.
Outcome harm(const Cell& c) {
  const bool complete = c.phase == "teardown";  // every size was measured and reported
  Outcome o;
  o.expected = complete ? "the run was complete: the survivor exits 0 with its results"
                        : "the survivor exits non-zero naming the cause within --timeout + 5 s";
  if (c.fault == Fault::link_down)
    o.expected = complete ? "the run was complete: both sides exit 0 with their results"
                          : "both sides exit non-zero naming the cause within --timeout + 5 s";
  if (c.phase == "handshake" && c.side != Side::server)
    o.expected = std::string(c.fault == Fault::link_down ? "the client exits non-zero naming the cause; " : "") +
                 "the server ends that client's run naming the cause within --timeout + 5 s and waits "
                 "for the next client";
  if (exit_bounded_by_kernel(c))
    o.expected = "the client names the cause within --timeout + 5 s; it exits once the kernel lets go "
                 "of its half-made iWARP connection (siw's MPA reply timeout, 10 s)";
  Running r;
  const Side paused = c.side == Side::both ? Side::client : c.side;
  start(r, c.setup, c.phase, paused, kTimeoutSeconds);
  Process& hurt = paused == Side::server ? *r.server : *r.client;
  if (!wait_until_paused(hurt, r.pause_file(), 60s)) {
    o.observed = "never paused at " + c.phase + ": " + describe_exit("it", hurt.wait_for(0ms), 0, hurt);
    return o;
  }
  std::optional<PairLinkCut> cut;
  if (c.fault == Fault::sigkill) hurt.kill(SIGKILL);
  if (c.fault == Fault::link_down) {
    // The server's silence clock runs from the client's pause: held still
    // while the cut is put in place, it cannot give up on the client (and
    // tell it so) first, which would make this a SIGSTOP cell. Once going
    // again, each side can only find out by its own timeout.
    r.server->kill(SIGSTOP);
    cut.emplace(r.port);
    r.server->kill(SIGCONT);
    hurt.kill(SIGCONT);
  }
  const auto t0 = Clock::now();
  std::vector<Process*> survivors;
  if (c.fault == Fault::link_down) survivors = {r.server.get(), r.client.get()};
  else survivors = {paused == Side::server ? r.client.get() : r.server.get()};
  bool held = true;
  for (Process* p : survivors) {
    const char* who = p == r.server.get() ? "server" : "client";
    auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(kSurvivorLimit - (Clock::now() - t0));
    if (server_serves_on(c, p == r.server.get())) {
      held = check_server_serves_on(*p, limit, t0, o) && held;
      p->kill(SIGKILL);
      continue;
    }
    if (exit_bounded_by_kernel(c)) {
      const bool said = p->wait_for_output("error:", limit) && names_what_happened(p->err());
      o.observed = std::string(who) + (said ? " named the cause after " : " said nothing in ") +
                   fmt_seconds(seconds_since(t0)) + " s; ";
      held = held && said;
      limit = std::chrono::duration_cast<std::chrono::milliseconds>(kSurvivorLimit + kMpaReplyTimeout -
                                                                     (Clock::now() - t0));
    }
    const auto rc = p->wait_for(limit);
    o.seconds = seconds_since(t0);
    o.observed += (o.observed.empty() || o.observed.back() == ' ' ? "" : "; ") + describe_exit(who, rc, o.seconds, *p);
    held = held && rc && (complete ? *rc == 0 : *rc != 0 && names_what_happened(p->err()));
  }
  hurt.kill(SIGKILL);  // a stopped side ends at once; nothing is left behind
  o.verdict = held ? Outcome::Verdict::held : Outcome::Verdict::failed;
  return o;
}

/// A hello the cell's server would take, but with iterations 0.
rdmabench::TestSpec hello_for(const Setup& s, std::uint64_t iterations) {
  rdmabench::TestSpec spec;
  spec.operation = s.binary.find("read") != std::string::npos ? rdmabench::Operation::read
                                                              : rdmabench::Operation::write;
  spec.measurement = is_bandwidth(s) ? rdmabench::Measurement::bandwidth : rdmabench::Measurement::latency;
  const bool cm = s.device.kind == "iWARP" || std::find(s.both.begin(), s.both.end(), "-R") != s.both.end();
  if (cm) spec.connect = rdmabench::ConnectMethod::rdma_cm;
  spec.iterations = iterations;
  return spec;
}

// A hostile hello to the server is answered while the paused client must
// not be given up on: a longer --timeout for these cells.
constexpr int kHostileTimeoutSeconds = 10;

/// "; the run completed" or how it failed, and whether both exited 0.
bool both_exit_zero(Process& client, Process& server, std::chrono::seconds client_limit, Outcome& o,
                    const char* success) {
  const auto client_rc = client.wait_for(client_limit);
  const auto server_rc = server.wait_for(10s);
  const bool ok = client_rc == 0 && server_rc == 0;
  o.observed += ok ? success
                   : "; it failed: " + describe_exit("client", client_rc, 0, client) + "; " +
                         describe_exit("server", server_rc, 0, server);
  return ok;
}

/// Before any run: a hello with iterations 0 is refused naming the field,
/// and the same server then serves a correct client.
Outcome hostile_before_run(const Cell& c) {
  Outcome o;
  o.expected = "refused, naming -n/--iters and its range; the server then serves a correct client";
  const int port = free_port_pair();
  auto server = start_server(command(c.setup, port, kHostileTimeoutSeconds));
  const auto t0 = Clock::now();
  const auto answer = try_answer_to_hello(port, hello_for(c.setup, 0));
  o.seconds = seconds_since(t0);
  const bool refused = answer && answer->find("-n/--iters 0 is out of range") != std::string::npos &&
                       server->running();
  o.observed = answer ? "refused: " + reason_in(*answer) : "connection refused";
  Args client = command(c.setup, port, kHostileTimeoutSeconds);
  client.insert(client.end(), {"-n", "200", c.setup.device.address});
  Process correct(client);
  const bool served = both_exit_zero(correct, *server, 60s, o, "; then served a correct client (both exit 0)");
  o.verdict = refused && served ? Outcome::Verdict::held : Outcome::Verdict::failed;
  return o;
}

/// No byte back: whether the exchange's 10 s ran out or the connection
/// closed first, and whether the server was still there, tell a busy
/// server's turn-away that never came from one that ended the run.
std::string unanswered_words(double seconds, Process& server) {
  std::ostringstream words;
  words << "no byte back after " << static_cast<int>(seconds * 10) / 10.0 << " s ("
        << (seconds >= 9.5 ? "nothing within the 10 s" : "closed unanswered") << "; the server "
        << (server.running() ? "still running" : "had exited") << ")";
  return words.str();
}

/// During a run (its client paused at the phase): a second client's hello
/// is turned away as busy, and the run then completes.
Outcome hostile_during_run(const Cell& c) {
  Outcome o;
  o.expected = c.phase == "teardown"
                   ? "turned away as busy, or no listener or no answer (the server's run is over); the run completes"
                   : "turned away as busy; the paused run then completes: both exit 0";
  Running r;
  start(r, c.setup, c.phase, Side::client, kHostileTimeoutSeconds, true);
  if (!wait_until_paused(*r.client, r.pause_file(), 60s)) {
    o.observed = "the client never paused at " + c.phase;
    return o;
  }
  const auto t0 = Clock::now();
  const auto answer = try_answer_to_hello(r.port, hello_for(c.setup, 0));
  o.seconds = seconds_since(t0);
  const bool busy = answer && answer->find("the server is busy with a run") != std::string::npos;
  // At teardown the server may be exiting: its listener gone, or the
  // connection taken into the backlog and closed unanswered as it exits:
  // no byte came back (the answer is raw bytes, not reason_in's decoding).
  const bool closed_unanswered = answer && answer->empty();
  const bool gone = (!answer || closed_unanswered) && c.phase == "teardown";
  o.observed = busy ? "turned away: " + reason_in(*answer)
               : gone ? (answer ? "closed unanswered (the server was exiting)" : "no listener (the server had finished)")
               : closed_unanswered ? unanswered_words(o.seconds, *r.server)
               : answer ? "answered: " + reason_in(*answer) : "connection refused";
  r.client->kill(SIGCONT);
  const bool completed = both_exit_zero(*r.client, *r.server, 60s, o, "; the run completed (both exit 0)");
  o.verdict = (busy || gone) && completed ? Outcome::Verdict::held : Outcome::Verdict::failed;
  return o;
}

/// A hostile server: whoever answers the client's hello with garbage.
Outcome hostile_to_client(const Cell& c) {
  Outcome o;
  if (c.phase != "handshake") {
    o.expected = "cannot happen";
    o.observed = "the client accepts no connection: once connected, only the server it chose speaks to it "
                 "(what that server could send is the fuzz targets' case, tests/fuzz)";
    o.verdict = Outcome::Verdict::cannot_happen;
    return o;
  }
  o.expected = "the client exits non-zero naming the garbage within --timeout + 5 s";
  const int port = free_port_pair();
  GarbageServer garbage(port);
  Args client = command(c.setup, port, kTimeoutSeconds);
  client.insert(client.end(), {"-n", "200", "127.0.0.1"});
  const auto t0 = Clock::now();
  Process p(client);
  const auto rc = p.wait_for(kSurvivorLimit);
  o.seconds = seconds_since(t0);
  o.observed = describe_exit("client", rc, o.seconds, p);
  o.verdict = rc && *rc != 0 && p.err().find("error: not an rdmabench peer") != std::string::npos
                  ? Outcome::Verdict::held
                  : Outcome::Verdict::failed;
  return o;
}

}  // namespace

bool names_what_happened(const std::string& message) {
  // The words the binaries use for each fate of a peer (lib/system/
  // watchdog.cpp, lib/control), and the kernel's for a refused or reset
  // connection. Each must be on the error line itself.
  static const char* const kFates[] = {
      "went silent",      "closed the control connection", "closed the connection", "gave up",
      "timed out",        "did not complete within",       "stopped answering",     "Connection reset by peer",
      "Connection refused", "lost the control connection",
  };
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) {
    // An error line, or a server's "the run for CLIENT failed: WHY" notice.
    if (line.find("error:") == std::string::npos && line.find(" failed: ") == std::string::npos) continue;
    for (const char* fate : kFates)
      if (line.find(fate) != std::string::npos) return true;
  }
  return false;
}

std::string Setup::name() const {
  std::string n = binary;
  for (const auto& a : both) n += " " + a;
  return n + " (" + connection + ")";
}

const char* to_string(Fault f) {
  switch (f) {
    case Fault::sigkill: return "SIGKILL";
    case Fault::sigstop: return "SIGSTOP";
    case Fault::link_down: return "link down";
    case Fault::hostile: return "hostile peer";
  }
  return "?";
}

const char* to_string(Side s) {
  switch (s) {
    case Side::server: return "server";
    case Side::client: return "client";
    case Side::both: return "both (one guest, one link)";
  }
  return "?";
}

Outcome run_cell(const Cell& c) {
  if (c.fault != Fault::hostile) return harm(c);
  if (c.side == Side::client) return hostile_to_client(c);
  return c.phase == "handshake" ? hostile_before_run(c) : hostile_during_run(c);
}

}  // namespace lab::faults
