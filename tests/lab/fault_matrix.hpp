#pragma once
// The fault matrix (issue: hardening): every way a peer can fail, at every
// phase of a run, on every connection method, and what the side that
// survives does. fault_matrix_test.cpp lists the cells and writes the
// table (docs/fault-matrix.md); fault_cells.cpp runs one cell.

#include <string>

#include "lab.hpp"

namespace lab::faults {

/// What runs: a binary on a device, with options given to both sides.
struct Setup {
  std::string binary;
  Device device;
  std::string connection;  ///< for the table: "RoCEv2, TCP exchange", ...
  Args both;               ///< -R, -q 4, ...
  std::string name() const;
};

enum class Fault { sigkill, sigstop, link_down, hostile };
enum class Side { server, client, both };

/// Seconds every wait for a peer may take (--timeout on both sides), and the
/// slack the survivor is allowed beyond it.
constexpr int kTimeoutSeconds = 2;
constexpr double kSlackSeconds = 5.0;

struct Cell {
  Setup setup;
  Side side;         ///< who is hurt (the other survives); both for a cut link
  Fault fault;
  std::string phase; ///< handshake, mid-run, end-of-size, teardown
};

struct Outcome {
  enum class Verdict { held, failed, cannot_happen };
  std::string expected;
  std::string observed;
  double seconds = -1;  ///< from the fault to the last survivor's exit; < 0: none
  Verdict verdict = Verdict::failed;
};

Outcome run_cell(const Cell& cell);

/// Whether a survivor's error message names what happened to its peer or
/// the path: it went silent, closed the connection, gave up, timed out, or
/// refused or reset it. "error:" alone is not enough: "remote access error"
/// names no cut link.
bool names_what_happened(const std::string& message);

const char* to_string(Fault f);
const char* to_string(Side s);

}  // namespace lab::faults
